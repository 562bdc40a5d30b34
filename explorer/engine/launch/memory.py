"""Whether a launch's buffers fit: the device's largest allocation and its global memory, and
the host memory the inputs, the float64 references and the verification take. Checked from
the launch description before anything is allocated, for every kernel alike."""

from __future__ import annotations

import os
from collections.abc import Callable

from explorer.description.launch import DescriptionError, LaunchDescription
from explorer.engine.launch.verify import CHUNK
from explorer.engine.records import DeviceInfo, Refusal

# Host bytes per element beyond the arrays themselves: random inputs are drawn in float64
# and cast; a result's float64 reference keeps a value and a magnitude (a given answer is
# widened on the way: a third float64 for a while); a result is read back three times. The
# comparison's own temporaries are a piece's (verify.CHUNK elements), whatever the result's
# size: counted once.
_HOST_BYTES_PER_INPUT = 16
_HOST_BYTES_PER_RESULT = 3 * 8
_HOST_BYTES_OF_A_PIECE = CHUNK * 96
_HOST_MARGIN = 0.6  # of the memory available: the rest is for Python, OpenCL and the OS

# Every buffer lies between two guard regions (engine/launch/bind.py): a write up to 4 MiB past
# (or before) it lands in its own guard and is reported naming it. Smaller where the device
# would not hold them (many buffers on a small device), never less than a page.
GUARD_BYTES = (4 << 20) + (64 << 10)
MIN_GUARD_BYTES = 4096
_GUARD_SHARE = 8  # the guards take at most 1/8 of the device's global memory


def guard_bytes(description: LaunchDescription, device: DeviceInfo, align_bits: int = 0) -> int:
    """The guard on each side of every buffer of this launch: a page at least (or the
    device's base-address alignment, on which a sub-buffer must start); none on Oclgrind,
    which checks every access itself and gets plain buffers (bind.guarded_buffer)."""
    if "oclgrind" in device.platform.lower():
        return 0
    count = max(1, len(description.buffers))
    room = device.global_mem_bytes // (_GUARD_SHARE * 2 * count) if device.global_mem_bytes else 0
    chosen = min(GUARD_BYTES, room) if room else GUARD_BYTES
    floor = max(MIN_GUARD_BYTES, align_bits // 8)
    return max(floor, chosen - chosen % floor)


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


def host_bytes(description: LaunchDescription) -> int:
    """The host bytes a run takes: every buffer's array, and for each result its reference
    and the copies read back; the comparison's temporaries of one piece."""
    total = 0
    for b in description.buffers:
        scalars = b.count * b.element.lanes
        total += b.nbytes + scalars * _HOST_BYTES_PER_INPUT
        if b.result:
            total += scalars * _HOST_BYTES_PER_RESULT + 3 * b.nbytes
    if any(b.result for b in description.buffers):
        total += _HOST_BYTES_OF_A_PIECE
    return total


def memory_problem(
    description: LaunchDescription, device: DeviceInfo, available: int
) -> str | None:
    """What does not fit, in words; None when everything does."""
    guards = 2 * guard_bytes(description, device)
    # The guards are part of each allocation: a figure said of a buffer counts them, so the
    # need named is the one that exceeds the limit named.
    guarded = f", with the {_bytes(guards)} of guard regions around each" if guards else ""
    for b in description.buffers:
        if b.nbytes + guards > device.max_alloc_bytes > 0:
            what = f" ({b.count} × {b.element.name})" if b.element.width > 1 else ""
            need = _exact(b.nbytes)
            if guards:
                need = (
                    f"{_exact(b.nbytes + guards)} with the guard regions around it that catch "
                    f"writes past its ends ({_exact(b.nbytes)}{what} without)"
                )
            else:
                need += what
            return (
                f"buffer {b.name} needs {need}; {device.name} allocates "
                f"at most {_exact(device.max_alloc_bytes)} at once"
            )
    total = sum(b.nbytes + guards for b in description.buffers)
    if total > device.global_mem_bytes > 0:
        return (
            f"the buffers need {_bytes(total)}{guarded}; {device.name} has "
            f"{_bytes(device.global_mem_bytes)} of global memory"
        )
    needed = host_bytes(description)
    if needed > available * _HOST_MARGIN:
        return (
            f"the inputs and the float64 reference need about {_bytes(needed)} of host "
            f"memory; {_bytes(available)} is available"
        )
    return None


def check_memory(
    describe_at: Callable[[dict[str, int]], LaunchDescription],
    sizes: dict[str, int],
    device: DeviceInfo,
    host_available: int | None = None,
) -> Refusal | None:
    """Refuse, before anything is allocated, a launch whose buffers exceed the device's
    largest allocation or its global memory, or whose inputs and references exceed the host
    memory available (with a margin). The refusal names the bytes and suggests sizes that
    fit, found by describing the launch at halved sizes."""
    available = available_host_bytes() if host_available is None else host_available

    def problem_at(candidate: dict[str, int]) -> str | None:
        try:
            return memory_problem(describe_at(candidate), device, available)
        except (DescriptionError, ValueError):
            return "it cannot be described at these sizes"

    reason = problem_at(sizes)
    if reason is None:
        return None
    smaller = dict(sizes)
    fits = False
    for _ in range(64):  # halving: at most log2 of the largest size steps
        if all(v == 1 for v in smaller.values()):
            break
        smaller = {k: max(1, v // 2) for k, v in smaller.items()}
        if problem_at(smaller) is None:
            fits = True
            break
    fix = (
        f"Use smaller sizes, e.g. {', '.join(f'{k}={v}' for k, v in smaller.items())}."
        if fits and smaller
        else "No size of this kernel fits; free memory or pick another device."
    )
    described = ", ".join(f"{k}={v}" for k, v in sizes.items()) or "this launch"
    return Refusal(f"{described} does not fit: {reason}.", fix)


def _exact(count: int) -> str:
    """Bytes to the byte, and in the unit a person reads."""
    return f"{count} bytes ({_bytes(count)})" if count >= 1024 else f"{count} bytes"


def _bytes(count: int) -> str:
    value = float(count)
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            return f"{value:.0f} {unit}" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{count} bytes"
