"""Run one :class:`RunRequest` in this process: plan, build, upload, launch, time, verify.

The executor calls this in its own process; nothing here is safe against a kernel
that crashes the runtime or never returns, which is why it lives over there.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from explorer.engine.arguments import (
    BoundArguments,
    Judged,
    bind_arguments,
    buffer_bytes,
    check_parameters,
    family_for,
    initial_arrays,
    judge_results,
    launch_names,
    read_results,
    references,
    reset_buffers,
    run_reference_kernel,
)
from explorer.engine.header.catalog import role_layout
from explorer.engine.header.signature import (
    Parameter,
    SignatureError,
    kernel_parameters,
    kernel_signature,
    numpy_scalar,
)
from explorer.engine.launch.build import BuildError, build_options, option_defines, platform_options
from explorer.engine.launch.devices import NoDeviceError, pick_device
from explorer.engine.launch.nonuniform import NonUniformError, describe, emulated_source
from explorer.engine.launch.plan import (
    LaunchPlan,
    check_kernel_limits,
    kernel_limit_refusal,
    plan,
    reported_limit_note,
)
from explorer.engine.launch.runtime import OpenCLRuntime, runtime
from explorer.engine.launch.verify import verify
from explorer.engine.measure.baselines import CopyKernel
from explorer.engine.records import (
    DeviceInfo,
    Refusal,
    RunHead,
    RunRequest,
    RunResult,
    Timing,
    Variant,
    Verdict,
    failed_result,
)
from explorer.families import Family, InputError, Reference
from explorer.families.custom import CustomSpec, DeclarationError
from explorer.families.images import ImageError
from explorer.frontend import language_standard

OUTPUT_TEXT_LIMIT = 64 * 1024


@dataclass
class Prepared:
    """A configuration that passed every check: built, with inputs and the reference."""

    session: OpenCLRuntime
    request: RunRequest
    device: DeviceInfo
    problem: Family
    sizes: dict[str, int]
    launch: LaunchPlan
    context: Any
    queue: Any
    kernel: Any
    params: list[Parameter]
    dtype: np.dtype
    inputs: dict[str, np.ndarray]
    reference: Reference
    reference_ms: float
    local_bytes: int
    head: RunHead
    kernel_wg_limit: int = 0  # CL_KERNEL_WORK_GROUP_SIZE as the driver reported it
    custom: CustomRun | None = None
    options: tuple[str, ...] = ()  # the variant's compiler options, defines first
    inputs_digest: bytes = b""  # ``content_key`` of the inputs alone, where it was needed
    built_with: tuple[str, ...] = ()  # what ``kernel`` was built with (``quick_build``)


@dataclass
class CustomRun:
    """A custom kernel's declarations, the names its expressions saw, its references
    (None: nothing to compare with) and, once bound, its buffers."""

    spec: CustomSpec
    names: dict[str, int]
    references: dict[str, Reference] | None
    bound: BoundArguments | None = None


@dataclass
class Bound:
    """Kernel arguments in place: buffers uploaded, the output filled with a sentinel."""

    args: list[Any]
    out_buffer: Any
    host_out: np.ndarray
    upload_ms: float
    param_bytes: list[int]  # bytes of each pointer argument (0 for scalars)
    guards: list[Guarded] = field(default_factory=list)


# A CPU compiler's optimiser spends seconds on a large instrumented kernel, more than a small
# launch takes to run unoptimised. PoCL, first trace: matmul/fast at 64³ 5.7 s optimised, 0.9 s
# not; tiled at 128² 2.5 s, 0.9 s (a repeat, built already: 0.06 s, 0.21 s). Past this many
# work-items the repeats lose more than the first trace gains (tiled 256²: 0.46 s, 1.27 s),
# so a larger trace, and any trace on a GPU, is optimised as a run is.
QUICK_BUILD_WORK_ITEMS = 1 << 14


def _builds_quicker_than_it_runs(device: DeviceInfo, global_size: tuple[int, ...]) -> bool:
    return device.type.upper() == "CPU" and math.prod(global_size) <= QUICK_BUILD_WORK_ITEMS


def prepare(
    request: RunRequest,
    source: str | None = None,
    display_name: str | None = None,
    time_reference: bool = True,
    quick_build: bool = False,
) -> Prepared | RunResult:
    """Plan, build (``source`` replaces the variant's, e.g. an instrumented copy), make inputs.
    ``time_reference``: time the numpy reference warm (a trace shows no timing: it skips it).
    ``quick_build``: a small launch on a CPU device is built without optimisation (a trace:
    see :data:`QUICK_BUILD_WORK_ITEMS`).

    Everything that can go wrong before launch comes back as a :class:`RunResult`.
    """
    variant = request.variant
    problem = family_for(variant)
    s = runtime()
    try:
        device = pick_device(s.devices, request.device_key)
    except NoDeviceError as exc:
        return failed_result(request, str(exc), "environment")
    unchecked = RunHead(
        family=variant.family,
        variant=variant.id,
        device=device.name,
        platform=device.platform,
        sizes=dict(request.sizes),
        global_size=None,
        local_size=None,
        defines=dict(request.defines),
    )
    try:
        sizes = problem.check_sizes(request.sizes)
    except InputError as exc:
        return unchecked.failed(str(exc), "input")
    launch = plan(variant, sizes, request.local, request.defines, device, anyway=request.anyway)
    if isinstance(launch, Refusal):
        if launch.overridable:  # "run anyway" is offered only if the memory would fit too
            memory = check_memory(problem, sizes, np.dtype(variant.dtype), device)
            launch = memory or launch
        return replace(unchecked, sizes=sizes, local_size=request.local).refused(launch)
    head = replace(
        unchecked,
        sizes=sizes,
        global_size=launch.ndrange or launch.global_size,
        local_size=launch.local_size,
        defines=launch.defines,
        outside_constraints=launch.outside,
    )
    memory = check_memory(problem, sizes, np.dtype(variant.dtype), device)
    if memory is not None:
        return head.refused(memory)
    cl = s.cl
    context, queue = s.queue(device)
    own = platform_options(variant.options, device.platform)
    options = build_options(launch.defines, (*own, *variant.build_options))
    built_with = options
    if quick_build and _builds_quicker_than_it_runs(device, launch.global_size):
        built_with = (*options, "-cl-opt-disable")
    if launch.ndrange and source is None:  # a traced source was rewritten before instrumenting
        try:
            source = nonuniform_source(
                variant, launch.ndrange, launch.local_size, launch.defines, device
            )
        except NonUniformError as exc:
            return head.refused(Refusal(f"{exc}.", "Use a local size that divides the NDRange."))
    try:
        kernel = s.cache.kernel(
            cl,
            context,
            device.key,
            source or variant.source,
            built_with,
            variant.kernel,
            display_name or os.path.basename(variant.path) or variant.id,
        )
        # A custom kernel declares what each parameter holds: vector scalars pass too.
        read_parameters = kernel_signature if variant.custom is not None else kernel_parameters
        params = read_parameters(variant.source, variant.kernel, launch.defines)
    except BuildError as exc:
        return head.failed(str(exc), "build", build_log=exc.log)
    except SignatureError as exc:
        return head.failed(str(exc), "build")
    if variant.custom is not None:
        try:
            check_parameters(variant.custom, params, variant.kernel)
        except DeclarationError as exc:
            return head.failed(f"{variant.path}: {exc}", "input")
    elif len(params) != len(variant.args):
        return head.failed(
            f"{variant.kernel} takes {len(params)} parameters but the header maps "
            f"{len(variant.args)} roles ({', '.join(variant.args)})",
            "build",
        )
    wg_limit, local_bytes = kernel_limits(cl, kernel, context.devices[0])
    refusal = check_kernel_limits(launch, wg_limit, local_bytes, device)
    if refusal is not None:
        return head.refused(refusal)
    note = reported_limit_note(launch, wg_limit, device)
    if launch.ndrange:
        partial = (
            f"non-uniform work-groups: {describe(launch.ndrange, launch.local_size)}, the last "
            f"group of a dimension smaller; launched as whole groups of "
            f"{'x'.join(map(str, launch.global_size))} work-items whose extra ones leave at once"
        )
        note = f"{note} {partial}" if note else partial
    head = replace(head, note=note)
    dtype = np.dtype(variant.dtype)
    custom = None
    digest = b""
    if variant.custom is not None:
        names = launch_names(sizes, launch.defines, launch.local_size, device.compute_units)
        started = time.perf_counter()
        try:
            inputs = initial_arrays(variant.custom, names, request.text)
            kernel_results = None
            if variant.custom.reference_kernel:
                kernel_results = run_reference_kernel(
                    s, context, queue, device.key, variant.custom, variant.kernel, inputs,
                    names, options, launch.global_size, launch.local_size,
                )  # fmt: skip
            refs = references(variant.custom, inputs, names, kernel_results)
        except BuildError as exc:
            return head.failed(f"the reference kernel: {exc}", "build", build_log=exc.log)
        except (DeclarationError, InputError, ImageError, SignatureError) as exc:
            return head.failed(f"{variant.path}: {exc}", "input")
        except cl.Error as exc:
            message = f"the reference kernel: the OpenCL runtime reported: {exc}"
            return head.failed(message, "runtime")
        reference_ms = (time.perf_counter() - started) * 1e3
        reference = Reference(np.zeros(0), np.zeros(0), 1)
        custom = CustomRun(variant.custom, names, refs if variant.custom.checked else None)
    else:
        try:
            inputs = problem.make_inputs(
                sizes, dtype, request.input, request.text, request.image_path
            )
        except (InputError, ImageError) as exc:
            return head.failed(str(exc), "input")
        except MemoryError:
            return head.refused(_OUT_OF_MEMORY)
        try:
            started = time.perf_counter()
            if time_reference:
                reference = problem.reference(inputs, sizes)
            else:  # a trace: the same inputs as the last trace give the same answer
                digest = content_key((), inputs)
                key = content_key(
                    (variant.family, variant.layout, sorted(sizes.items()), digest), {}
                )
                reference = _references.get(key) or problem.reference(inputs, sizes)
                _references.clear()
                _references[key] = reference
            reference_ms = (time.perf_counter() - started) * 1e3
            if time_reference and reference_ms < 200:
                # The first call pays for waking BLAS threads: time a warm one.
                started = time.perf_counter()
                problem.reference(inputs, sizes)
                reference_ms = (time.perf_counter() - started) * 1e3
        except MemoryError:
            return head.refused(_OUT_OF_MEMORY)
    return Prepared(
        s,
        request,
        device,
        problem,
        sizes,
        launch,
        context,
        queue,
        kernel,
        params,
        dtype,
        inputs,
        reference,
        reference_ms,
        local_bytes,
        head,
        wg_limit,
        custom,
        options,
        digest,
        built_with,
    )


# Host bytes per element beyond the arrays themselves: inputs are drawn in float64 and cast;
# the float64 reference keeps a value and a magnitude, and verification makes a few
# float64 temporaries of the output's size; the output is read back three times.
_HOST_BYTES_PER_INPUT = 16
_HOST_BYTES_PER_OUTPUT = 8 * 8
_HOST_MARGIN = 0.6  # of the memory available: the rest is for Python, OpenCL and the OS


def available_host_bytes() -> int:
    """Memory this process may still take: ``MemAvailable`` (or free pages), capped by an
    address-space limit (``ulimit -v``) less what the process already maps."""
    available = 0
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    available = int(line.split()[1]) * 1024
                    break
    except (OSError, ValueError):
        pass
    if not available:
        try:
            available = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (ValueError, OSError, AttributeError):
            available = 2**40
    try:
        import resource

        limit = resource.getrlimit(resource.RLIMIT_AS)[0]
        if limit != resource.RLIM_INFINITY:
            with open("/proc/self/statm", encoding="ascii") as statm:
                mapped = int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
            available = min(available, max(0, limit - mapped))
    except (ImportError, OSError, ValueError):
        pass
    return available


def memory_needs(
    problem: Family, sizes: dict[str, int], dtype: np.dtype
) -> tuple[dict[str, int], int]:
    """Device bytes of every buffer role, and the host bytes a run takes (inputs, the
    reference, the read-back output and the verification)."""
    shapes = problem.shapes(sizes)
    device = {role: math.prod(shape) * dtype.itemsize for role, shape in shapes.items()}
    out_elements = math.prod(problem.output_shape(sizes))
    in_elements = sum(
        math.prod(shape) for role, shape in shapes.items() if role != problem.output_role
    )
    host = in_elements * (_HOST_BYTES_PER_INPUT + dtype.itemsize)
    host += out_elements * (_HOST_BYTES_PER_OUTPUT + 3 * dtype.itemsize)
    return device, host


def check_memory(
    problem: Family,
    sizes: dict[str, int],
    dtype: np.dtype,
    device: DeviceInfo,
    host_available: int | None = None,
) -> Refusal | None:
    """Refuse, before anything is allocated, a problem whose buffers exceed the device's
    largest allocation or its global memory, or whose inputs and reference exceed the host
    memory available (with a margin). The refusal names the bytes and suggests sizes that
    fit."""
    available = available_host_bytes() if host_available is None else host_available

    def problem_with(candidate: dict[str, int]) -> str | None:
        buffers, host = memory_needs(problem, candidate, dtype)
        guards = 2 * guard_bytes(0)
        for role, nbytes in buffers.items():
            if nbytes + guards > device.max_alloc_bytes:
                return (
                    f"buffer {role} needs {_bytes(nbytes)}; {device.name} allocates at most "
                    f"{_bytes(device.max_alloc_bytes)} at once"
                )
        total = sum(buffers.values()) + guards * len(buffers)
        if total > device.global_mem_bytes:
            return (
                f"the buffers need {_bytes(total)}; {device.name} has "
                f"{_bytes(device.global_mem_bytes)} of global memory"
            )
        if host > available * _HOST_MARGIN:
            return (
                f"the inputs and the float64 reference need about {_bytes(host)} of host "
                f"memory; {_bytes(available)} is available"
            )
        return None

    reason = problem_with(sizes)
    if reason is None:
        return None
    smaller = dict(sizes)
    for _ in range(256):  # halving: at most log2 of the largest size steps
        smaller = {k: max(1, v // 2) for k, v in smaller.items()}
        if problem_with(smaller) is None or all(v == 1 for v in smaller.values()):
            break
    fits = problem_with(smaller) is None
    fix = (
        f"Use smaller sizes, e.g. {', '.join(f'{k}={v}' for k, v in smaller.items())}."
        if fits
        else "No size of this problem fits; free memory or pick another device."
    )
    described = ", ".join(f"{k}={v}" for k, v in sizes.items())
    return Refusal(f"{described} does not fit: {reason}.", fix)


def _bytes(count: int) -> str:
    value = float(count)
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{value:.0f} {unit}" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{count} bytes"


def nonuniform_source(
    variant: Variant,
    ndrange: tuple[int, ...],
    local: tuple[int, ...],
    defines: dict[str, int],
    device: DeviceInfo,
) -> str:
    """The variant's source rewritten to run ``ndrange`` in non-uniform work-groups of
    ``local`` (engine/launch/nonuniform.py); raises NonUniformError where it cannot be."""
    names: dict[str, int | str] = {**option_defines(variant.build_options), **defines}
    std = language_standard(variant.build_options)
    return emulated_source(variant.source, variant.kernel, ndrange, local, names, std, device.name)


def kernel_limits(cl: Any, kernel: Any, cl_device: Any) -> tuple[int, int]:
    """The built kernel's reported work-group limit and its own local memory, in bytes."""
    info = cl.kernel_work_group_info
    return (
        int(kernel.get_work_group_info(info.WORK_GROUP_SIZE, cl_device)),
        int(kernel.get_work_group_info(info.LOCAL_MEM_SIZE, cl_device)),
    )


def rejected_group_size(p: Prepared, exc: Exception) -> RunResult | None:
    """The refusal to give when the runtime rejects a local size above the reported limit.

    Such a launch is tried because some drivers report less than they run; one that
    fails with CL_INVALID_WORK_GROUP_SIZE is refused with the figure the driver reported.
    """
    if p.head.note is None:
        return None
    if getattr(exc, "code", None) != p.session.cl.status_code.INVALID_WORK_GROUP_SIZE:
        return None
    head = replace(p.head, note=None)
    return head.refused(kernel_limit_refusal(p.launch, p.kernel_wg_limit, p.device))


def bind(p: Prepared) -> Bound:
    """Upload inputs, allocate the output (filled with NaN or INT_MIN) and local arguments.

    Every buffer lies between two guard regions filled with a pattern (see
    :func:`guarded_buffer`); :func:`damaged_guards` tells after a launch whether the kernel
    wrote outside its buffers."""
    cl = p.session.cl
    if p.custom is not None:
        c = p.custom
        c.bound = bind_arguments(cl, p.context, p.queue, c.spec, p.params, p.inputs, c.names)
        first = c.spec.results[0].name if c.spec.results else ""
        return Bound(
            c.bound.args,
            c.bound.buffers.get(first),
            p.inputs.get(first, np.zeros(0)),
            c.bound.upload_ms,
            c.bound.param_bytes,
        )
    mf = cl.mem_flags
    layout = p.request.variant.layout
    out_shape = p.problem.output_shape(p.sizes)
    out_layout = role_layout(layout, p.problem.output_role)
    host_out = np.empty(out_shape if out_layout == "row-major" else out_shape[::-1], p.dtype)
    args: list[Any] = []
    param_bytes: list[int] = []
    guards: list[Guarded] = []
    upload_ms = 0.0
    out_buffer = None
    for param, role in zip(p.params, p.request.variant.args, strict=True):
        if param.space == "local":
            size = max(p.launch.local_mem_bytes, 4)
            args.append(cl.LocalMemory(size))
            param_bytes.append(size)
        elif param.space == "scalar":
            value = p.problem.scalar(role, p.sizes, p.inputs)
            args.append(numpy_scalar(param.scalar_type or "int", value))
            param_bytes.append(0)
        elif role == p.problem.output_role:
            guarded = guarded_buffer(p, role, host_out.nbytes)
            out_buffer = guarded.buffer
            guards.append(guarded)
            args.append(out_buffer)
            param_bytes.append(host_out.nbytes)
        else:
            host = _to_device_layout(p.inputs[role], role, p.problem.matrix_roles, layout)
            guarded = guarded_buffer(p, role, host.nbytes, mf.READ_ONLY)
            guards.append(guarded)
            event = cl.enqueue_copy(p.queue, guarded.buffer, host)
            event.wait()
            upload_ms += _event_ms(event)
            args.append(guarded.buffer)
            param_bytes.append(host.nbytes)
    bound = Bound(args, out_buffer, host_out, upload_ms, param_bytes, guards)
    reset_output(p, bound)
    return bound


GUARD_PATTERN = 0xA5  # one byte, repeated; a kernel's float or int output rarely ends so


@dataclass
class Guarded:
    """One kernel buffer inside a larger allocation: ``guard`` pattern bytes on each side."""

    role: str
    buffer: Any  # what the kernel gets: a sub-buffer of ``whole``, or ``whole`` itself
    whole: Any
    nbytes: int
    guard: int  # 0: the device cannot make sub-buffers here, no guard


def guard_bytes(device_align_bits: int) -> int:
    """Guard size: a page, or the device's base-address alignment if larger (a sub-buffer
    must start on it)."""
    return max(4096, device_align_bits // 8)


def guarded_buffer(p: Prepared, role: str, nbytes: int, flags: int | None = None) -> Guarded:
    """A buffer of ``nbytes`` for ``role`` between two guard regions filled with
    :data:`GUARD_PATTERN`. The kernel sees only its sub-buffer; writes past either end land
    in a guard, where :func:`damaged_guards` finds them."""
    cl = p.session.cl
    mf = cl.mem_flags
    flags = mf.READ_WRITE if flags is None else flags
    size = max(nbytes, 4)
    if "oclgrind" in p.device.platform.lower():
        # The simulator checks every access itself, and loses track of what was
        # initialised through a sub-buffer (it then reports every read as uninitialised).
        plain = cl.Buffer(p.context, flags, size)
        return Guarded(role, plain, plain, size, 0)
    try:
        guard = guard_bytes(int(p.context.devices[0].mem_base_addr_align))
        whole = cl.Buffer(p.context, mf.READ_WRITE, guard + size + guard)
        pattern = np.full(guard, GUARD_PATTERN, dtype=np.uint8)
        cl.enqueue_copy(p.queue, whole, pattern, dst_offset=0)
        cl.enqueue_copy(p.queue, whole, pattern, dst_offset=guard + size).wait()
        sub = whole.get_sub_region(guard, size, flags)
    except cl.Error:
        plain = cl.Buffer(p.context, flags, size)
        return Guarded(role, plain, plain, size, 0)
    return Guarded(role, sub, whole, size, guard)


def damaged_guards(p: Prepared, bound: Bound) -> str | None:
    """Which buffer the kernel wrote outside of, and where, in words; None when every
    guard still holds its pattern."""
    cl = p.session.cl
    for guarded in bound.guards:
        if not guarded.guard:
            continue
        before = np.empty(guarded.guard, dtype=np.uint8)
        after = np.empty(guarded.guard, dtype=np.uint8)
        cl.enqueue_copy(p.queue, before, guarded.whole, src_offset=0)
        end = guarded.guard + guarded.nbytes
        cl.enqueue_copy(p.queue, after, guarded.whole, src_offset=end).wait()
        changed_after = np.flatnonzero(after != GUARD_PATTERN)
        changed_before = np.flatnonzero(before != GUARD_PATTERN)
        if changed_after.size:
            reach = int(changed_after[-1]) + 1
            return (
                f"wrote past the end of its buffer {guarded.role} ({guarded.nbytes} bytes): "
                f"{changed_after.size} bytes changed within {reach} bytes after it"
            )
        if changed_before.size:
            reach = guarded.guard - int(changed_before[0])
            return (
                f"wrote before the start of its buffer {guarded.role}: {changed_before.size} "
                f"bytes changed within {reach} bytes before it"
            )
    return None


def reset_output(p: Prepared, bound: Bound) -> None:
    """Unwritten output elements show up as NaN (or INT_MIN), never as stale data; a custom
    kernel's written buffers go back to their declared contents."""
    if p.custom is not None and p.custom.bound is not None:
        reset_buffers(p.session.cl, p.queue, p.custom.spec, p.custom.bound, p.inputs)
        return
    sentinel = np.nan if p.dtype.kind == "f" else np.iinfo(p.dtype).min
    fill = np.full(bound.host_out.shape, sentinel, dtype=p.dtype)
    p.session.cl.enqueue_copy(p.queue, bound.out_buffer, fill).wait()


def read_output(p: Prepared, bound: Bound) -> tuple[np.ndarray, float]:
    """The output in the problem's (row-major) shape, and the download time."""
    host = np.empty_like(bound.host_out)
    if bound.out_buffer is None or not host.nbytes:  # a custom kernel with no result buffer
        return host, float("nan")
    event = p.session.cl.enqueue_copy(p.queue, host, bound.out_buffer)
    event.wait()
    out_layout = role_layout(p.request.variant.layout, p.problem.output_role)
    if out_layout == "column-major" and host.ndim == 2:
        host = host.T
    return np.ascontiguousarray(host), _event_ms(event)


def poison_local(p: Prepared) -> None:
    run = _poisoner(p.session, p.context, p.queue, p.device, p.launch, p.local_bytes)
    if run is not None:
        run()


def judge_custom(p: Prepared) -> Judged:
    """A custom kernel's results as the last launch left them, against its references."""
    c = p.custom
    assert c is not None and c.bound is not None
    results = read_results(p.session.cl, p.queue, c.spec, c.bound, p.inputs)
    return judge_results(c.spec, results, p.inputs, c.references, c.names)


def bytes_moved(p: Prepared) -> float:
    """The bytes the problem must move at least (a custom kernel: its buffers' bytes)."""
    if p.custom is not None:
        return buffer_bytes(p.custom.spec, p.custom.names)
    return p.problem.min_bytes(p.sizes, p.dtype.itemsize)


def judge(p: Prepared, outputs: list[np.ndarray]) -> tuple[Verdict, np.ndarray]:
    """The verdict over several launches' outputs: the worse one is shown."""
    verdicts = [verify(o, p.reference, p.dtype) for o in outputs]
    worst = min(
        range(len(outputs)), key=lambda i: (verdicts[i].verified, -verdicts[i].max_abs_error)
    )
    return verdicts[worst], outputs[worst]


# The last reference, by what it is computed from: a trace pressed again on the same inputs
# (another group, the same configuration) needs the same answer.
_references: dict[bytes, Reference] = {}


def content_key(parts: tuple[Any, ...], arrays: dict[str, np.ndarray]) -> bytes:
    """A short key for what a computation depends on: ``parts`` by their repr, ``arrays`` by
    role, type, shape and contents (the caches of the last reference and the last plain
    launch)."""
    digest = hashlib.blake2b(digest_size=16)
    for part in parts:
        digest.update(repr(part).encode() + b"\0")
    for role in sorted(arrays):
        array = np.ascontiguousarray(arrays[role])
        digest.update(f"{role} {array.dtype} {array.shape}".encode())
        digest.update(array.data)
    return digest.digest()


_OUT_OF_MEMORY = Refusal(
    "the host ran out of memory for the inputs, the reference or the output.",
    "Use smaller sizes, or close other programs.",
)


def run_request(request: RunRequest) -> RunResult:
    """Everything that can go wrong in a well-behaved kernel becomes a field of the result."""
    try:
        return _run(request)
    except MemoryError:
        return failed_result(request, str(_OUT_OF_MEMORY), "input")


def _run(request: RunRequest) -> RunResult:
    p = prepare(request)
    if isinstance(p, RunResult):
        return p
    cl = p.session.cl
    try:
        bound = bind(p)
        p.kernel.set_args(*bound.args)
        poison_local(p)
        launch = p.launch
        with _captured_stdout() as captured:
            event = cl.enqueue_nd_range_kernel(
                p.queue, p.kernel, launch.global_size, launch.local_size
            )
            event.wait()
            p.queue.finish()
        # The first launch is kept apart: a kernel that reads memory it never wrote can
        # look right on later launches, which find the first one's leftovers.
        first, _ = read_output(p, bound)
        judged_first = judge_custom(p) if p.custom is not None else None
        samples: list[float] = []
        paired: list[float] = []
        pair = None
        if request.pair_copy:
            moved = bytes_moved(p)
            pair = CopyKernel(p.session, p.context, p.queue, p.device, moved)
        warmup = max(1, request.warmup)
        try:
            with silenced_stdout():  # printf output of one launch is enough
                for i in range(1, warmup + request.repeat):
                    event = cl.enqueue_nd_range_kernel(
                        p.queue, p.kernel, launch.global_size, launch.local_size
                    )
                    event.wait()
                    if i >= warmup:
                        samples.append(_event_ms(event))
                        if pair is not None:
                            paired.append(pair.time_ms())
                p.queue.finish()
        finally:
            if pair is not None:
                pair.release()
        last, download_ms = read_output(p, bound)
        damage = damaged_guards(p, bound)
    except cl.Error as exc:
        rejected = rejected_group_size(p, exc)
        if rejected is not None:
            return rejected
        return p.head.runtime_failed(exc)
    if damage is not None:
        return p.head.failed(
            f"{p.request.variant.qualified_id} {damage}. Out-of-bounds writes corrupt memory "
            "that belongs to something else; the result is not trusted and the executor was "
            "restarted. Check the kernel's bounds (trace it to see the accesses).",
            "crash",
        )
    if judged_first is not None:
        # A custom kernel may update its buffers in place: the first launch, which started
        # from the declared contents, is the one judged.
        verdict, output = judged_first.verdict, judged_first.output
        reference_value = judged_first.reference
        outputs = judged_first.outputs
    else:
        verdict, output = judge(p, [first, last])
        reference_value, outputs = p.reference.value, None
    return p.head.judged(
        verdict=verdict,
        timing=Timing(tuple(samples), bound.upload_ms, download_ms, p.reference_ms, tuple(paired)),
        flops=p.problem.flops(p.sizes),
        bytes_moved=bytes_moved(p),
        output_text=captured.text,
        output=output if request.keep_output else None,
        reference=reference_value if request.keep_output else None,
        inputs=p.inputs if request.keep_output else None,
        outputs=outputs if request.keep_output else None,
    )


def _to_device_layout(
    array: np.ndarray, role: str, matrix_roles: tuple[str, ...], layout: str
) -> np.ndarray:
    if role_layout(layout, role) == "column-major" and role in matrix_roles and array.ndim == 2:
        return np.ascontiguousarray(array.T)
    return np.ascontiguousarray(array)


def _event_ms(event: Any) -> float:
    try:
        return (event.profile.end - event.profile.start) * 1e-6
    except Exception:  # Some runtimes give no profiling data for copies.
        return float("nan")


_POISON_SOURCE = """
__kernel void poison_local(__local uint* scratch, uint words)
{
    for (uint i = get_local_id(0); i < words; i += get_local_size(0))
        scratch[i] = 0x7fc00000u;  /* a float NaN */
}
"""


def _poisoner(
    s: OpenCLRuntime,
    context: Any,
    queue: Any,
    device: DeviceInfo,
    launch: LaunchPlan,
    kernel_local_bytes: int,
) -> Any:
    """Fill local memory with NaN before the first launch.

    Local memory keeps whatever the last kernel left there. A kernel that reads local
    memory before writing it (seed 004's ``sum[]``, a missing barrier) can then look
    right by luck; after this it reads NaN and the verdict shows it.
    """
    used = kernel_local_bytes + launch.local_mem_bytes
    if used == 0 or device.local_mem_bytes < 64:
        return None
    cl = s.cl
    words = min(used // 4 + 256, device.local_mem_bytes // 4 - 16)
    kernel = s.cache.kernel(
        cl, context, device.key, _POISON_SOURCE, (), "poison_local", "poison_local.cl"
    )
    group = max(
        1,
        min(
            math.prod(launch.local_size),
            device.max_work_group_size,
            kernel.get_work_group_info(
                cl.kernel_work_group_info.WORK_GROUP_SIZE, context.devices[0]
            ),
        ),
    )
    groups = max(1, device.compute_units) * 8

    def run() -> None:
        kernel.set_args(cl.LocalMemory(4 * words), np.uint32(words))
        cl.enqueue_nd_range_kernel(queue, kernel, (group * groups,), (group,)).wait()

    return run


@contextlib.contextmanager
def silenced_stdout() -> Iterator[None]:
    sys.stdout.flush()
    with open(os.devnull, "wb") as sink:
        saved = os.dup(1)
        os.dup2(sink.fileno(), 1)
        try:
            yield
        finally:
            os.dup2(saved, 1)
            os.close(saved)


class Capture:
    text: str | None = None


@contextlib.contextmanager
def captured_fd(fd: int, limit: int, note: str = "") -> Iterator[Capture]:
    """What the OpenCL runtime writes to a file descriptor (``printf`` to 1, a simulator's
    reports to 2), caught at the descriptor since it bypasses Python's streams."""
    capture = Capture()
    (sys.stdout if fd == 1 else sys.stderr).flush()
    with tempfile.TemporaryFile() as sink:
        saved = os.dup(fd)
        os.dup2(sink.fileno(), fd)
        try:
            yield capture
        finally:
            os.dup2(saved, fd)
            os.close(saved)
            size = sink.tell()
            sink.seek(0)
            data = sink.read(limit)
            if data:
                text = data.decode("utf-8", errors="replace")
                if size > limit:
                    text += f"\n[... output truncated: {size} bytes{note}, the first {limit} shown]"
                capture.text = text


def _captured_stdout() -> contextlib.AbstractContextManager[Capture]:
    """Kernel ``printf`` output of one launch."""
    return captured_fd(1, OUTPUT_TEXT_LIMIT, " received from the first launch")
