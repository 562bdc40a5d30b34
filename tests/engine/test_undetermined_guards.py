"""A run whose answer was recorded (a captured launch) and is not met launches the kernel
once more with other bytes past each buffer's end, to tell which elements that memory
decides. A write past a buffer's end made in that launch is reported as any other is.

The kernel below reads x[64], one past the end of x, and writes where that word says: inside
d with the guards' own pattern (d[90]), 37 elements past d's end with the other bytes. Before,
the guards were checked before that launch and filled again after it: the run said WRONG,
its write past the end of d unreported, and the executor that had run it was kept."""

from __future__ import annotations

import numpy as np

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.launch.bind import GUARD_PATTERN
from explorer.engine.records import RunRequest

KERNEL = """\
__kernel void scatter(__global const uint *x, __global uint *d)
{
    uint i = get_global_id(0);
    uint v = x[i + 1];  /* x[64] for the last work-item: past the end */
    if (i < 63)
        d[i] = v;
    else
        d[255u - (v & 0xffu)] = 7u;  /* d[90] where the word is 0xA5A5A5A5 */
}
"""

HEADER = """\
/*---
name = "Writes where a word past the end of its input says"
family = "custom"
kernel = "scatter"
global = ["64"]
local = ["16"]
[args.x]
buffer = "uint"
count = "64"
contents = "iota"
access = "read"
[args.d]
buffer = "uint"
count = "128"
contents = "zeros"
access = "write"
[reference]
expected = {d = "d.npy"}
expected_from = "the original run"
---*/
#line 1
"""


def test_a_write_past_the_end_in_the_launch_with_other_bytes_is_reported(
    executor, device, tmp_path
):
    answer = np.zeros(128, dtype=np.uint32)
    answer[:63] = np.arange(1, 64)
    answer[255 - GUARD_PATTERN] = 7
    answer[0] = 1000  # a wrong element the inputs decide: the answer is not met
    np.save(tmp_path / "d.npy", answer)
    path = tmp_path / "scatter.cl"
    path.write_text(HEADER + KERNEL, encoding="utf-8")
    run = RunRequest(load_variant_file(path), {}, device_key=device.key, repeat=1, warmup=1)
    result = executor.run(run)
    assert result.error_kind == "crash", result.summary()
    assert "past the end of its buffer d" in (result.error or ""), result.error
    assert "other bytes" in (result.error or ""), result.error


def test_so_is_one_by_the_groups_outside_a_traced_window(executor, device, tmp_path):
    """A trace of group 0 alone: the other groups' elements come from the kernel as written,
    and so does their part of the launch with other bytes, which is not bounds-checked."""
    from explorer.engine.record.trace_launch import TraceRequest

    answer = np.zeros(128, dtype=np.uint32)
    answer[:63] = np.arange(1, 64)
    answer[255 - GUARD_PATTERN] = 7
    answer[0] = 1000
    np.save(tmp_path / "d.npy", answer)
    path = tmp_path / "scatter.cl"
    path.write_text(HEADER + KERNEL, encoding="utf-8")
    run = RunRequest(load_variant_file(path), {}, device_key=device.key)
    traced = executor.trace(TraceRequest(run, center=(0, 0, 0), budget_bytes=16 * 2 * 12))
    result = traced.result
    assert result.error_kind == "crash", result.summary()
    assert "past the end of its buffer d" in (result.error or ""), result.error
    assert "outside the traced window" in (result.error or ""), result.error
