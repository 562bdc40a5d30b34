"""PoCL on a processor its compiler does not know.

PoCL from pip compiles kernels with the LLVM it was built with, for the processor that LLVM
names from the host's CPUID. A processor newer than that LLVM (an AMD Zen 5 with PoCL 3.0's
LLVM 14, for one) is named ``generic``, which the compiler then refuses: every build fails with
"unknown target CPU 'generic'". PoCL reads no setting to name the processor, so the device's
record of it is pointed at the most capable generic x86-64 level the processor's features
allow (``x86-64-v4`` for AVX-512, ``x86-64-v3`` for AVX2 and FMA, ...). Nothing changes on a
processor PoCL knows, on another platform, or outside Linux on x86-64.
"""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import ctypes

UNKNOWN = b"generic\0"

# The x86-64 micro-architecture levels (as LLVM names them) and the CPU flags each needs.
LEVELS = (
    ("x86-64-v4", {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"}),
    ("x86-64-v3", {"avx2", "bmi1", "bmi2", "f16c", "fma", "movbe", "xsave"}),
    ("x86-64-v2", {"cx16", "lahf_lm", "popcnt", "sse4_1", "sse4_2", "ssse3"}),
)

# Where PoCL keeps its record of the processor name: within the device's first few KiB.
_SEARCHED_BYTES = 8192

_names: dict[int, ctypes.Array[ctypes.c_char]] = {}  # kept alive while PoCL points at them
# ctypes and platform are imported when a device is looked at (the recorder imports this
# module at the start of every Python a capture runs, most of which never build a kernel).


def level_for(flags: set[str]) -> str:
    """The highest x86-64 level whose features all appear in ``flags``."""
    names = [name for name, needs in LEVELS if needs <= flags]
    # each level includes the ones below it, so the first whose chain is complete wins
    for index, (name, _) in enumerate(LEVELS):
        if all(below in names for below, _ in LEVELS[index:]):
            return name
    return "x86-64"


def _cpu_flags() -> set[str]:
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as info:
            for line in info:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def _readable_ranges() -> list[tuple[int, int]]:
    ranges = []
    try:
        with open("/proc/self/maps", encoding="ascii", errors="replace") as maps:
            for line in maps:
                span, permissions = line.split()[:2]
                if permissions.startswith("r"):
                    low, high = (int(part, 16) for part in span.split("-"))
                    ranges.append((low, high))
    except OSError:
        return []
    return ranges


def _is_pocl_cpu(cl: Any, platform: Any, device: Any) -> bool:
    try:
        return "portable computing language" in str(platform.name).lower() and bool(
            int(device.type) & int(cl.device_type.CPU)
        )
    except (cl.Error, AttributeError, ValueError):
        return False


def name_unknown_processors(cl: Any, platforms: list[Any]) -> list[str]:
    """Point each PoCL CPU device whose processor LLVM calls ``generic`` at a name LLVM knows.

    Returns the names given (empty where nothing needed it). Safe to call again: a device
    already named is left alone."""
    import platform as host

    if host.system() != "Linux" or host.machine() not in ("x86_64", "AMD64"):
        return []
    given = []
    ranges: list[tuple[int, int]] | None = None
    for platform in platforms:
        try:
            devices = platform.get_devices()
        except cl.Error:
            continue
        for device in devices:
            if not _is_pocl_cpu(cl, platform, device):
                continue
            if ranges is None:
                ranges = _readable_ranges()
            name = _rename(int(device.int_ptr), ranges)
            if name:
                given.append(name)
    return given


def _rename(base: int, ranges: list[tuple[int, int]]) -> str | None:
    import ctypes

    ranges = sorted(ranges)
    lows = [low for low, _ in ranges]

    def readable(address: int, size: int) -> bool:
        # the range that starts last at or below ``address`` (the maps do not overlap)
        at = bisect.bisect_right(lows, address) - 1
        return at >= 0 and address + size <= ranges[at][1]

    # The searched bytes up to the first that cannot be read (ranges that meet go on), read
    # at once as pointers.
    end = base
    at = bisect.bisect_right(lows, base) - 1
    while 0 <= at < len(ranges) and ranges[at][0] <= end < ranges[at][1]:
        end = ranges[at][1]
        at += 1
    size = ctypes.sizeof(ctypes.c_void_p)
    count = max(0, min(_SEARCHED_BYTES, end - base)) // size
    pointers = memoryview(ctypes.string_at(base, count * size)).cast("Q") if count else []
    slots = [
        base + index * size
        for index, pointer in enumerate(pointers)
        if pointer > 4096
        and readable(pointer, len(UNKNOWN))
        and ctypes.string_at(pointer, len(UNKNOWN)) == UNKNOWN
    ]
    if not slots:
        return None
    name = level_for(_cpu_flags())
    kept = ctypes.create_string_buffer(name.encode("ascii"))
    _names[base] = kept
    for slot in slots:
        ctypes.c_uint64.from_address(slot).value = ctypes.addressof(kept)
    return name
