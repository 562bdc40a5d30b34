"""A launch's arguments in place: every buffer between two guard regions and uploaded from its
initial contents, the ``__local`` sizes, the scalars; and, after launches, the results read back
and the guards checked.

A write past the end (or before the start) of a buffer lands in its own guard, which still
holds its pattern otherwise; the run then reports the buffer and how far the write reached,
and the executor that ran it is not trusted with the next request.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from explorer.description.contents import scalar_array
from explorer.description.launch import (
    BufferParam,
    LaunchDescription,
    LocalParam,
    NoInit,
    Param,
    SamplerParam,
    ScalarParam,
)
from explorer.engine.header.signature import Parameter, numpy_scalar
from explorer.engine.launch import images
from explorer.engine.launch.memory import guard_bytes
from explorer.engine.launch.runtime import OpenCLRuntime
from explorer.engine.records import DeviceInfo


class Prepared(Protocol):
    """What binding needs of a prepared launch (``engine/launch/prepare.py``)."""

    runtime: OpenCLRuntime
    device: DeviceInfo
    context: Any
    queue: Any
    params: list[Parameter]
    arranged: tuple[Param, ...]
    inputs: dict[str, np.ndarray]

    @property
    def description(self) -> LaunchDescription: ...


GUARD_PATTERN = 0xA5  # one byte, repeated; a kernel's float or int output rarely ends so


@dataclass
class Guarded:
    """One kernel buffer inside a larger allocation: ``guard`` pattern bytes on each side."""

    name: str
    buffer: Any  # what the kernel gets: a sub-buffer of ``whole``, or ``whole`` itself
    whole: Any
    nbytes: int
    guard: int  # 0: the device cannot make sub-buffers here, no guard


@dataclass
class Bound:
    """Kernel arguments in place, in the kernel's parameter order."""

    args: list[Any]
    buffers: dict[str, Guarded]
    upload_ms: float
    param_bytes: list[int]  # bytes of each pointer argument (0 for scalars)
    guards: list[Guarded] = field(default_factory=list)


def bind(p: Prepared) -> Bound:
    """Upload every buffer's initial contents into its guarded allocation, size the
    ``__local`` arguments and convert the scalars to the kernel's types."""
    cl = p.runtime.cl
    mf = cl.mem_flags
    guard = guard_bytes(p.description, p.device, _align_bits(p))
    args: list[Any] = []
    buffers: dict[str, Guarded] = {}
    param_bytes: list[int] = []
    upload_ms = 0.0
    for param, kernel_param in zip(p.arranged, p.params, strict=True):
        if isinstance(param, LocalParam):
            args.append(cl.LocalMemory(max(param.nbytes, 4)))
            param_bytes.append(param.nbytes)
        elif isinstance(param, ScalarParam):
            args.append(scalar_argument(param, kernel_param))
            param_bytes.append(0)
        elif isinstance(param, SamplerParam):
            args.append(images.sampler(cl, p.context, param))
            param_bytes.append(0)
        elif param.null:
            args.append(None)
            param_bytes.append(0)
        elif param.image is not None:  # no guards: the runtime keeps an image's bounds
            image = images.create(cl, p.context, param)
            buffers[param.name] = Guarded(param.name, image, image, param.nbytes, 0)
            if not isinstance(param.contents, NoInit):
                event = images.upload(cl, p.queue, image, param, p.inputs[param.name])
                event.wait()
                upload_ms += event_ms(event)
            args.append(image)
            param_bytes.append(param.nbytes)
        else:
            flags = mf.READ_ONLY if param.access == "read" else mf.READ_WRITE
            guarded = guarded_buffer(p, param.name, param.nbytes, flags, guard)
            buffers[param.name] = guarded
            if param.nbytes and not isinstance(param.contents, NoInit):
                event = cl.enqueue_copy(p.queue, guarded.buffer, device_order(param, p.inputs))
                event.wait()
                upload_ms += event_ms(event)
            args.append(guarded.buffer)
            param_bytes.append(param.nbytes)
    return Bound(args, buffers, upload_ms, param_bytes, list(buffers.values()))


def upload(p: Prepared, bound: Bound, b: BufferParam, arrays: dict[str, np.ndarray]) -> Any:
    """``arrays[b.name]`` copied into the kernel's buffer or image ``b``; the event."""
    cl = p.runtime.cl
    target = bound.buffers[b.name].buffer
    if b.image is not None:
        return images.upload(cl, p.queue, target, b, arrays[b.name])
    return cl.enqueue_copy(p.queue, target, device_order(b, arrays))


def download(p: Prepared, bound: Bound, b: BufferParam) -> tuple[np.ndarray, float]:
    """The kernel's buffer or image ``b`` as the device holds it now, in its host shape, and
    the time the copy took."""
    cl = p.runtime.cl
    host = np.empty(b.device_shape, dtype=b.element.base)
    if not host.nbytes:
        return host, 0.0
    source = bound.buffers[b.name].buffer
    if b.image is not None:
        event = images.download(cl, p.queue, host, source, b)
    else:
        event = cl.enqueue_copy(p.queue, host, source)
    event.wait()
    return (np.ascontiguousarray(host.T) if b.column_major else host), event_ms(event)


def scalar_argument(param: ScalarParam, kernel_param: Parameter) -> Any:
    """A scalar as the kernel takes it: in its declared type, or in the kernel's own type
    (a family's size passed to a kernel that takes it as ``uint``)."""
    values = param.value if isinstance(param.value, tuple) else (param.value,)
    if param.type is None:
        return numpy_scalar(kernel_param.scalar_type or "int", values[0])
    array = scalar_array(param.type, values, param.name)
    return array[0] if array.size == 1 else array


def device_order(b: BufferParam, arrays: dict[str, np.ndarray]) -> np.ndarray:
    """A buffer's host array in the order the device stores it (a column-major matrix
    transposed)."""
    array = arrays[b.name]
    return np.ascontiguousarray(array.T if b.column_major else array)


def reset(p: Prepared, bound: Bound) -> None:
    """Every buffer the kernel may write back to its initial contents (an output to its
    sentinel), so each recorded launch starts from the same state."""
    for b in p.description.buffers:
        if b.access == "read" or b.null or isinstance(b.contents, NoInit) or not b.nbytes:
            continue
        upload(p, bound, b, p.inputs)
    p.queue.finish()


def read_results(p: Prepared, bound: Bound) -> tuple[dict[str, np.ndarray], float]:
    """Every result buffer as the last launch left it, in its host shape, and the time the
    downloads took."""
    out = {}
    download_ms = 0.0
    for b in p.description.results:
        out[b.name], ms = download(p, bound, b)
        download_ms += ms
    return out, download_ms if out else float("nan")


def guarded_buffer(p: Prepared, name: str, nbytes: int, flags: int, guard: int) -> Guarded:
    """A buffer of ``nbytes`` between two guard regions filled with :data:`GUARD_PATTERN`.
    The kernel sees only its sub-buffer; writes past either end land in a guard, where
    :func:`damaged_guards` finds them. The allocation comes from :data:`_pool` when an
    earlier launch left one of that size intact."""
    cl = p.runtime.cl
    size = max(nbytes, 4)
    if "oclgrind" in p.device.platform.lower():
        # The simulator checks every access itself, and loses track of what was
        # initialised through a sub-buffer (it then reports every read as uninitialised).
        plain = cl.Buffer(p.context, flags, size)
        return Guarded(name, plain, plain, size, 0)
    key = (id(p.context), guard + size + guard, guard)
    try:
        kept = _pool.get(key)
        whole = kept.pop() if kept else _filled(p, guard + size + guard, guard, size)
        sub = whole.get_sub_region(guard, size, flags)
    except cl.Error:
        plain = cl.Buffer(p.context, flags, size)
        return Guarded(name, plain, plain, size, 0)
    return Guarded(name, sub, whole, size, guard)


def fill_guards(p: Prepared, bound: Bound, byte: int = GUARD_PATTERN) -> None:
    """Fill every buffer's guards with ``byte`` (back to :data:`GUARD_PATTERN` by default):
    what a kernel reads past a buffer's end is then that byte's, for a launch that tells
    which elements of a result such reads decide."""
    cl = p.runtime.cl
    for guarded in bound.guards:
        if not guarded.guard:
            continue
        pattern = np.full(guarded.guard, byte, dtype=np.uint8)
        cl.enqueue_copy(p.queue, guarded.whole, pattern, dst_offset=0)
        cl.enqueue_copy(p.queue, guarded.whole, pattern, dst_offset=guarded.guard + guarded.nbytes)
    p.queue.finish()


def _filled(p: Prepared, total: int, guard: int, size: int) -> Any:
    cl = p.runtime.cl
    whole = cl.Buffer(p.context, cl.mem_flags.READ_WRITE, total)
    pattern = np.full(guard, GUARD_PATTERN, dtype=np.uint8)
    cl.enqueue_copy(p.queue, whole, pattern, dst_offset=0)
    cl.enqueue_copy(p.queue, whole, pattern, dst_offset=guard + size).wait()
    return whole


# Guarded allocations whose guards a launch left intact, by (context, bytes, guard): filling a
# fresh pair of 4 MiB guards touches every page of them, which took 50 ms a run on a CPU.
_pool: dict[tuple[int, int, int], list[Any]] = {}
_POOL_BYTES = 512 << 20


def damaged_guards(
    p: Prepared, bound: Bound, keep: bool = True, byte: int = GUARD_PATTERN
) -> str | None:
    """Which buffer the kernel wrote outside of, and where, in words; None when every
    guard still holds its pattern (``byte``, where :func:`fill_guards` filled them with
    another). Allocations whose guards are intact go back to the pool for the next launch
    (with ``keep``: the launches are over)."""
    found = damage_by_buffer(p, bound, byte)
    damage = next(iter(found.values()), None)
    if damage is None and keep:
        for guarded in bound.guards:
            if guarded.guard:
                _keep(p, guarded)
    return damage


def damage_by_buffer(p: Prepared, bound: Bound, byte: int = GUARD_PATTERN) -> dict[str, str]:
    """What the kernel wrote outside each buffer whose guards no longer hold their pattern
    (``byte``), in words, by the buffer's name (in the order of ``bound.guards``)."""
    cl = p.runtime.cl
    damage = {}
    for guarded in bound.guards:
        if not guarded.guard:
            continue
        # Mapped, not copied: on a CPU device the guards are read where they lie.
        words = guarded.guard // 8
        end = guarded.guard + guarded.nbytes
        read = cl.map_flags.READ
        before = cl.enqueue_map_buffer(p.queue, guarded.whole, read, 0, (words,), np.uint64)[0]
        after = cl.enqueue_map_buffer(p.queue, guarded.whole, read, end, (words,), np.uint64)[0]
        p.queue.finish()
        found = _outside(guarded, before, after, byte)
        del before, after  # unmapped before the buffer is used again
        if found is not None:
            damage[guarded.name] = found
    return damage


def _outside(
    guarded: Guarded, before: np.ndarray, after: np.ndarray, byte: int = GUARD_PATTERN
) -> str | None:
    """What a kernel wrote into this buffer's guards, in words (compared eight bytes at a
    time; a changed word is then looked at byte by byte). ``byte``: what they were filled with."""
    word = np.uint64(int.from_bytes(bytes([byte]) * 8, "little"))
    changed_after = np.flatnonzero(after != word)
    if changed_after.size:
        bytes_after = after.view(np.uint8)
        changed = np.flatnonzero(bytes_after != byte)
        reach = int(changed[-1]) + 1
        return (
            f"wrote past the end of its buffer {guarded.name} ({guarded.nbytes} bytes): "
            f"{changed.size} bytes changed within {_reach(reach)} after it"
        )
    changed_before = np.flatnonzero(before != word)
    if changed_before.size:
        changed = np.flatnonzero(before.view(np.uint8) != byte)
        reach = guarded.guard - int(changed[0])
        return (
            f"wrote before the start of its buffer {guarded.name}: {changed.size} "
            f"bytes changed within {_reach(reach)} before it"
        )
    return None


def _keep(p: Prepared, guarded: Guarded) -> None:
    """Back to the pool, the oldest allocations leaving first past :data:`_POOL_BYTES`."""
    total = guarded.guard + guarded.nbytes + guarded.guard
    _pool.setdefault((id(p.context), total, guarded.guard), []).append(guarded.whole)
    while sum(k[1] * len(v) for k, v in _pool.items()) > _POOL_BYTES:
        oldest = next(k for k, v in _pool.items() if v)
        _pool[oldest].pop(0)
        if not _pool[oldest]:
            del _pool[oldest]


def _reach(count: int) -> str:
    return f"{count} bytes" if count < 1 << 20 else f"{count} bytes ({count / (1 << 20):.1f} MiB)"


def _align_bits(p: Prepared) -> int:
    try:
        return int(p.context.devices[0].mem_base_addr_align)
    except Exception:  # a device that does not say
        return 0


def event_ms(event: Any) -> float:
    try:
        return (event.profile.end - event.profile.start) * 1e-6
    except Exception:  # Some runtimes give no profiling data for copies.
        return float("nan")
