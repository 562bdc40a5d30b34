"""Kernels whose names a macro of an included header writes (``KDECL(twice)``, a pasted
``KNAME(thrice)``, a whole declaration ``KERNEL_HEAD(four)``): each is found by its own name,
its parameters are its own, and its trace build adds the trace's parameters to it alone.
The front end places a declaration where the macro is used, in the file itself (clang's
expansion location), never at the header's offsets."""

from __future__ import annotations

import re

import pytest

from explorer.engine.header.signature import kernel_signature
from explorer.trace.instrument import instrument

HEADER = """\
/* naming macros, defined apart from the kernels */
#define KDECL(NAME) __kernel void NAME
#define KNAME(NAME) k_##NAME
#define KERNEL_HEAD(NAME) __kernel void NAME(__global const float *x, __global float *y)
"""

SOURCE = """\
#include "names.h"
KDECL(twice)(__global const float *a, __global float *b)
{
    size_t i = get_global_id(0);
    b[i] = 2.0f * a[i + 1];
}
__kernel void KNAME(thrice)(__global const float *p, __global float *q, float s)
{
    size_t i = get_global_id(0);
    q[i] = s * p[i];
}
KERNEL_HEAD(four)
{
    size_t i = get_global_id(0);
    y[i] = 4.0f * x[i];
}
"""

PARAMETERS = {"twice": ["a", "b"], "k_thrice": ["p", "q", "s"], "four": ["x", "y"]}
# The line of each kernel's one read of global memory, and its text.
READS = {"twice": (5, "a[i + 1]"), "k_thrice": (10, "p[i]"), "four": (15, "x[i]")}


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "names.h").write_text(HEADER, encoding="utf-8")
    return str(tmp_path)


def test_each_kernel_a_header_macro_names_has_its_own_parameters(folder):
    for kernel, names in PARAMETERS.items():
        params = kernel_signature(SOURCE, kernel, include_dirs=(folder,))
        assert [p.name for p in params] == names, kernel


@pytest.mark.parametrize("kernel", sorted(PARAMETERS))
def test_the_trace_build_of_each_records_its_own_accesses(folder, kernel):
    inst = instrument(SOURCE, kernel, include_dirs=(folder,))
    reads = [(s.line, s.text) for s in inst.sites if s.text and "[" in s.text and s.op == 0]
    assert READS[kernel] in reads, reads
    assert not inst.not_traced
    # The trace's parameters follow this kernel's own last one, and no other kernel's.
    last = PARAMETERS[kernel][-1]
    assert re.search(rf"void {kernel}\([^)]*\b{last}, __global uint\* __tr_roff", inst.source)
    for other in set(PARAMETERS) - {kernel}:
        assert not re.search(rf"void {other}\([^)]*__tr_roff", inst.source), other
