"""An array that is a member of a private struct variable (``acc_t s; s.v[j]``) is traced
as a private array of its own, named as the kernel writes it (``s.v``): its accesses are
bounds-checked with the member's own extent, so an index past it is an out-of-bounds
finding at its line instead of a write into the next member, and the trace is complete.
Such kernels traced "incomplete" with a not-traced finding per access."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from explorer.trace.instrument import instrument
from explorer.trace.recorded import PRIVATE, READ, WRITE

KERNELS = Path(__file__).parent / "private_structs"
CONSTRUCTS = Path(__file__).parent / "constructs"


@pytest.mark.parametrize("name", ["accumulator", "helpers"])
def test_struct_member_arrays_trace_complete_and_compute_what_the_plain_run_does(
    executor, device, name
):
    run = RunRequest(
        load_variant_file(KERNELS / f"{name}.cl"), {}, device_key=device.key, input="random"
    )
    traced = executor.trace(TraceRequest(run))
    assert traced.analysis is not None, traced.result.summary()
    assert [(f.kind, f.line, f.message) for f in traced.analysis.findings] == []
    assert traced.report_json["complete"] is True
    assert "VERIFIED" in traced.result.summary()
    plain = executor.run(run)
    assert plain.outputs is not None and traced.result.outputs is not None
    for buffer, values in plain.outputs.items():
        np.testing.assert_array_equal(traced.result.outputs[buffer], values, err_msg=buffer)


def test_an_index_past_a_member_array_is_out_of_bounds_on_the_member_at_its_line(executor, device):
    variant = load_variant_file(CONSTRUCTS / "20_private_struct_oob.cl")
    run = RunRequest(variant, {"WIDTH": 64, "HEIGHT": 32}, device_key=device.key)
    traced = executor.trace(TraceRequest(run))
    assert traced.analysis is not None, traced.result.summary()
    [finding] = traced.analysis.findings
    assert (finding.kind, finding.line) == ("out-of-bounds", 18)
    assert finding.buffer == "acc.part"
    # Only the index past the end is reached outside, by every work-item: no "and others".
    assert finding.message.startswith("line 18 writes acc.part[4] outside acc.part (4 elements)")
    assert traced.report_json["complete"] is True


def test_each_form_of_a_member_array_is_its_own_private_buffer():
    source = """
    #define N 4
    typedef struct { float v[N]; float m[2][3]; struct { int k[3]; } inner; float4 q[2]; } acc_t;
    typedef struct { float w[2]; } pair_t;
    float sum2(pair_t p) { return p.w[0] + p.w[1]; }
    __kernel void k(__global float *out) {
        acc_t s;
        pair_t one;
        s.v[1] = 1.0f;
        s.m[1][2] = s.v[1];
        s.inner.k[2] = 3;
        s.q[1].y = 2.0f;
        float *p = s.v;
        p[3] = 1.0f;
        one.w[0] = one.w[1] = 0.5f;
        out[0] = sum2(one) + s.m[1][2] + p[3] + s.q[1].y;
    }
    """
    done = instrument(source, "k")
    assert done.not_traced == ()
    private = {b.id: b for b in done.buffers if b.space == PRIVATE}
    assert sorted((b.function, b.name, b.shape, b.elem_size) for b in private.values()) == [
        ("k", "one.w", (2,), 4),
        ("k", "s.inner.k", (3,), 4),
        ("k", "s.m", (2, 3), 4),
        ("k", "s.q", (2,), 16),
        ("k", "s.v", (4,), 4),
        ("sum2", "p.w", (2,), 4),
    ]
    sites = sorted(
        (s.line, s.op, private[s.buffer].name, s.text) for s in done.sites if s.space == PRIVATE
    )
    assert sites == [
        (5, READ, "p.w", "p.w[0]"),
        (5, READ, "p.w", "p.w[1]"),
        (9, WRITE, "s.v", "s.v[1]"),
        (10, READ, "s.v", "s.v[1]"),
        (10, WRITE, "s.m", "s.m[1][2]"),
        (11, WRITE, "s.inner.k", "s.inner.k[2]"),
        (12, WRITE, "s.q", "s.q[1].y"),
        (14, WRITE, "s.v", "p[3]"),  # through a pointer taken from the member
        (15, WRITE, "one.w", "one.w[0]"),
        (15, WRITE, "one.w", "one.w[1]"),
        (16, READ, "s.m", "s.m[1][2]"),
        (16, READ, "s.q", "s.q[1].y"),
        (16, READ, "s.v", "p[3]"),
    ]
    # checked against the member's own bytes (and its shadow: s is never given a value whole)
    assert "__TR_PS(&(p[3]), sizeof(*(&(p[3]))), s.v," in done.source


def test_members_no_access_reaches_take_no_buffer():
    source = """
    typedef struct { float a[4]; float b[4]; float c[4]; } three_t;
    __kernel void k(__global float *out) {
        three_t t;
        t.b[0] = 1.0f;
        out[0] = t.b[0];
    }
    """
    done = instrument(source, "k")
    assert [b.name for b in done.buffers if b.space == PRIVATE] == ["t.b"]
