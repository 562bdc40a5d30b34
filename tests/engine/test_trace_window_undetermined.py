"""A trace of a window of work-groups whose recorded answer is not met tells which elements
memory the kernel was not given decides as a run does: each element from one more launch of
the build that made it (the window's elements from the trace build, the others from the
kernel as written), not the others from the trace build.

The kernel below adds 1 in its trace build (``EXPLORER_TRACE``, defined there alone): the
window's elements are one more than the kernel as written makes, the others are not, and
nothing but the inputs decides any of them except the last, which reads one past the end of
x. Before, the extra launch ran the trace build over every group: each element outside the
window differed from what the kernel as written had made, and the verdict left all of them
unjudged, saying memory the kernel was not given decided them."""

from __future__ import annotations

import numpy as np

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest

N = 1024

KERNEL = """\
__kernel void diff(__global const float *x, __global float *d)
{
    int i = get_global_id(0);
    float v = x[i + 1] - x[i];
#ifdef EXPLORER_TRACE
    v += 1.0f;
#endif
    d[i] = v;
}
"""

HEADER = f"""\
/*---
name = "Forward difference, one more in its trace build"
family = "custom"
kernel = "diff"
global = ["{N}"]
local = ["16"]
[args.x]
buffer = "float"
count = "{N}"
contents = "npy"
file = "x.npy"
access = "read"
[args.d]
buffer = "float"
count = "{N}"
contents = "zeros"
access = "write"
[reference]
expected = {{d = "d.npy"}}
expected_from = "the original run"
---*/
#line 1
"""


def test_a_window_judges_the_elements_outside_it_as_the_kernel_as_written_made_them(
    executor, device, tmp_path
):
    x = np.arange(N, dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    answer = np.ones(N, dtype=np.float32)  # x[i + 1] - x[i]; d[N - 1] reads past the end
    np.save(tmp_path / "d.npy", answer)
    path = tmp_path / "diff.cl"
    path.write_text(HEADER + KERNEL, encoding="utf-8")
    run = RunRequest(load_variant_file(path), {}, device_key=device.key)
    # 64 groups of 16 work-items, 3 records each of 12 bytes: room for groups 0 to 3.
    request = TraceRequest(run, center=(0, 0, 0), budget_bytes=4 * 16 * 3 * 12)
    traced = executor.trace(request, keep_trace=True)
    assert traced.trace is not None, traced.result.summary()
    assert len(traced.trace.groups_traced) == 4
    verdict = traced.result.verdict
    assert traced.result.status == "wrong", traced.result.summary()
    # The window's 64 elements are one too many; d[N - 1], read past the end, is not judged.
    assert verdict.mismatches == 64, traced.result.summary()
    assert verdict.undetermined == (("d", 1, (N - 1,)),), traced.result.summary()
