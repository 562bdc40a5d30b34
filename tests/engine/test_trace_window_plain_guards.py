"""A trace of a window of work-groups reports a write past a buffer's end that a group
outside the window makes, as a run does: a crash naming the buffer.

The groups outside the window are filled by one launch of the kernel as written, which
skips nothing. It never looked at the guards around the buffers, so the kernel below, whose
last work-item writes one element past the end of ``out``, traced around group 0 with room
for four groups, came back with a verdict and no word of it; a run of it says the kernel
wrote past the end of ``out``. Traced around the last group, the window's own records show
the write (a finding, the trace kept): the guards then tell nothing more."""

from __future__ import annotations

import numpy as np

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest

N = 1024
GROUPS = N // 16

KERNEL = """\
__kernel void shifted(__global float *out)
{
    size_t i = get_global_id(0);
    out[i + 1] = (float)i;
}
"""

HEADER = f"""\
/*---
name = "Writes each element one further on, the last past the end"
family = "custom"
kernel = "shifted"
global = ["{N}"]
local = ["16"]
[args.out]
buffer = "float"
count = "{N}"
contents = "zeros"
access = "write"
---*/
#line 1
"""


def test_a_write_past_the_end_by_a_group_outside_the_window_is_reported(executor, device, tmp_path):
    path = tmp_path / "shifted.cl"
    path.write_text(HEADER + KERNEL, encoding="utf-8")
    run = RunRequest(load_variant_file(path), {}, device_key=device.key)
    ran = executor.run(run)
    assert ran.error_kind == "crash", ran.summary()
    assert "wrote past the end of its buffer out" in (ran.error or ""), ran.summary()
    # 64 groups of 16 work-items, one record each of 12 bytes: room for groups 0 to 3.
    budget = 4 * 16 * 12
    traced = executor.trace(TraceRequest(run, center=(0, 0, 0), budget_bytes=budget))
    assert traced.result.error_kind == "crash", traced.result.summary()
    error = traced.result.error or ""
    assert "wrote past the end of its buffer out (4096 bytes)" in error, error
    assert "groups outside the traced window" in error, error
    # Around the last group, the window's records show it: a finding, and no crash.
    last = TraceRequest(run, center=(GROUPS - 1, 0, 0), budget_bytes=budget)
    traced = executor.trace(last, keep_trace=True)
    assert traced.trace is not None, traced.result.summary()
    assert len(traced.trace.groups_traced) < GROUPS
    assert traced.result.error_kind is None, traced.result.summary()
    (finding,) = [f for f in traced.analysis.findings if f.kind == "out-of-bounds"]
    assert finding.buffer == "out" and finding.elements == (N,), finding.message


def test_a_window_that_writes_past_the_end_itself_keeps_its_trace_where_an_answer_is_recorded(
    executor, device, tmp_path
):
    """Where the recorded answer is not met, one more launch of the kernel as written tells
    which elements memory the kernel was not given decides: the window's own write past the
    end is made there too, and is the trace's finding, not a crash."""
    np.save(tmp_path / "out.npy", np.arange(-1, N - 1, dtype=np.float32))  # out[i] = i - 1
    reference = '[reference]\nexpected = {out = "out.npy"}\nexpected_from = "a run"\n---*/'
    path = tmp_path / "shifted.cl"
    path.write_text(HEADER.replace("---*/", reference) + KERNEL, encoding="utf-8")
    run = RunRequest(load_variant_file(path), {}, device_key=device.key)
    last = TraceRequest(run, center=(GROUPS - 1, 0, 0), budget_bytes=4 * 16 * 12)
    traced = executor.trace(last, keep_trace=True)
    assert traced.trace is not None, traced.result.summary()
    assert traced.result.status == "wrong", traced.result.summary()
    (finding,) = [f for f in traced.analysis.findings if f.kind == "out-of-bounds"]
    assert finding.buffer == "out" and finding.elements == (N,), finding.message
