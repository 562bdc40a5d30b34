"""The guard a finding proposes for an index that went below zero excludes the element it
reached, whatever the index's type. An unsigned index is never below zero: ``at >= 0``
always holds (a ``uint`` that went below zero wrapped to one past the end, a ``size_t`` to
one the device addresses before the start), so following that advice changed nothing. Such
an index is bounded by the end, by the name the kernel gives the count where it gives one;
a signed index is still tested against zero, and ``u - 1u`` still as ``u >= 1u``."""

from __future__ import annotations

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from explorer.trace.analysis.guards import advised, guard
from explorer.trace.c_expr import integer_types
from explorer.trace.recorded import GLOBAL, BufferInfo

KERNEL = """\
__kernel void below(__global int *a, __global int *b, __global int *c, __global int *d,
                    __global int *e, const uint n)
{
    size_t gid = get_global_id(0);
    if (gid == 0) {
        uint at = 0u - 1u;
        a[at] = 1;
        size_t before = gid - 1;
        b[before] = 1;
        ushort us = (ushort)(gid - 1);
        c[us] = 1;
        int s = (int)gid - 1;
        d[s] = 1;
        uint u = (uint)gid;
        e[u - 1u] = 1;
    }
}
"""

HEADER = """\
/*---
name = "Indices below zero of every integer type"
family = "custom"
kernel = "below"
global = ["16"]
local = ["16"]
[sizes]
N = 64
[args.a]
buffer = "int"
count = "N"
contents = "zeros"
access = "write"
[args.b]
buffer = "int"
count = "32"
contents = "zeros"
access = "write"
[args.c]
buffer = "int"
count = "32"
contents = "zeros"
access = "write"
[args.d]
buffer = "int"
count = "32"
contents = "zeros"
access = "write"
[args.e]
buffer = "int"
count = "32"
contents = "zeros"
access = "write"
[args.n]
scalar = "uint"
value = "N"
---*/
#line 1
"""


def test_a_guard_never_tests_an_unsigned_index_against_zero(executor, device, tmp_path):
    path = tmp_path / "below.cl"
    path.write_text(HEADER + KERNEL, encoding="utf-8")
    run = RunRequest(load_variant_file(path), {}, device_key=device.key)
    traced = executor.trace(TraceRequest(run))
    assert traced.analysis is not None, traced.result.summary()
    remedy = {f.buffer: f.remedy for f in traced.analysis.findings if f.kind == "out-of-bounds"}
    wraps = "always holds, and below zero it wraps to a value past the end)"
    assert remedy == {
        # A uint that wrapped: bounded by the argument holding the count (before: at >= 0).
        "a": f"if (at < n) (at is unsigned: at >= 0 {wraps}",
        # A size_t from get_global_id(0) - 1, by the count (before: before >= 0).
        "b": f"if (before < 32) (before is unsigned: before >= 0 {wraps}",
        # A ushort is 65535 there, past the end: its guard was always the bound.
        "c": "if (us < 32)",
        # A signed index is below zero: tested against zero, as before.
        "d": "if (s >= 0)",
        # An unsigned difference: u >= 1u excludes it, as before.
        "e": "if (u >= 1u)",
    }
    (a,) = [f for f in traced.analysis.findings if f.buffer == "a"]
    assert a.message.endswith(
        "Guard it in the kernel's own terms: if (at < n) (at is unsigned: at >= 0 always "
        "holds, and below zero it wraps to a value past the end)"
    ), a.message


def buffer(name: str, length: int) -> BufferInfo:
    return BufferInfo(name, None, GLOBAL, 4, length, (length,))


def test_the_type_of_the_index_decides_how_it_is_kept_from_below_zero():
    types = dict(
        integer_types(
            "__kernel void k(__global int *x, const uint n, int s) {\n"
            "    uint at = 0, other;\n    size_t g = get_global_id(0) - 1;\n"
            "    ushort us = 1; uint arr[4]; unsigned int dx = 1; int dy = 0;\n"
            "    for (int i = 0; i < 4; i++) { long i2 = i; }\n}\n"
        )
    )
    assert types == {
        "n": "uint",
        "s": "int",
        "at": "uint",
        "other": "uint",
        "g": "size_t",
        "us": "ushort",
        "dx": "uint",
        "dy": "int",
        "i": "int",
        "i2": "long",
    }
    x = buffer("x", 64)
    # A name of an unsigned type, a cast to one, and a sum an unsigned part makes unsigned.
    assert guard("x[at]", x, {}, -1, 3, types) == "if (at < 64)"
    assert guard("x[g]", x, {"n": 64}, -1, 3, types) == "if (g < n)"
    assert guard("x[(uint)(s - 1)]", x, {}, -1, 3, types) == "if ((uint)(s - 1) < 64)"
    w = buffer("w", 9)
    assert guard("w[dy * 3 + dx]", w, {}, -4, 4, types) == "if (dy * 3 + dx < 9)"
    # A signed one, a cast to one, arithmetic on a ushort (an int): against zero.
    assert guard("x[s]", x, {}, -1, 3, types) == "if (s >= 0)"
    assert guard("x[(int)g]", x, {}, -1, 3, types) == "if ((int)g >= 0)"
    assert guard("x[us + s]", x, {}, -1, 3, types) == "if (us + s >= 0)"
    # A difference: its own terms, whatever the type.
    assert guard("x[g - 1]", x, {}, -1, 3, types) == "if (g >= 1)"
    gid = "x[get_global_id(0) - 2u]"
    assert guard(gid, x, {}, -2, 3, types) == "if (get_global_id(0) >= 2u)"
    # Below zero and past the end: one bound, once.
    assert guard("x[at]", x, {}, -1, 70, types) == "if (at < 64)"
    # An index of a type no declaration tells, seen to wrap (an element just below 2^32).
    assert guard("x[idx]", x, {}, -1, -1, {}, wrapped=True) == "if (idx < 64)"
    assert guard("x[idx]", x, {}, -1, -1, {}) == "if (idx >= 0)"
    # Where the text does not show the index, the words say what to test.
    assert advised("p[0]", x, {}, -1, -1, {}, wrapped=True) == (
        "keep the index below 64 (the elements of x): an unsigned index cannot be tested "
        "against zero, since below zero it wraps to a large value"
    )
