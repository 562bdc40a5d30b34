"""PoCL on a processor its LLVM does not know (named ``generic``, which its compiler refuses):
the device's record of the processor is pointed at an x86-64 level the processor supports."""

from __future__ import annotations

import ctypes

from explorer.capture.bootstrap import host_cpu

ZEN5 = {"sse4_1", "sse4_2", "ssse3", "cx16", "lahf_lm", "popcnt"}
ZEN5 |= {"avx2", "bmi1", "bmi2", "f16c", "fma", "movbe", "xsave"}
ZEN5 |= {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"}


def test_the_level_is_the_highest_the_flags_allow():
    assert host_cpu.level_for(ZEN5) == "x86-64-v4"
    assert host_cpu.level_for(ZEN5 - {"avx512vl"}) == "x86-64-v3"
    assert host_cpu.level_for(ZEN5 - {"fma"}) == "x86-64-v2"  # AVX-512 without FMA: not v4
    assert host_cpu.level_for({"sse2"}) == "x86-64"


def test_a_record_naming_generic_is_renamed_and_others_left_alone(monkeypatch):
    monkeypatch.setattr(host_cpu, "_cpu_flags", lambda: ZEN5)
    generic = ctypes.create_string_buffer(b"generic")
    known = ctypes.create_string_buffer(b"znver3")
    device = (ctypes.c_uint64 * 8)()
    device[2] = ctypes.addressof(generic)
    device[5] = ctypes.addressof(known)
    device[6] = ctypes.addressof(generic)
    ranges = host_cpu._readable_ranges()
    assert host_cpu._rename(ctypes.addressof(device), ranges) == "x86-64-v4"
    assert ctypes.string_at(device[2]) == ctypes.string_at(device[6]) == b"x86-64-v4"
    assert ctypes.string_at(device[5]) == b"znver3"
    assert generic.value == b"generic"  # the string itself is not written over
    assert host_cpu._rename(ctypes.addressof(device), ranges) is None  # nothing left to do
