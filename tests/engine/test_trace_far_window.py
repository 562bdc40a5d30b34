"""A trace of a window of work-groups names an access too far for its record (a 32-bit
unsigned index that wrapped below zero) by the element the window's own work-items reached,
not by one that a group outside the window reached while the records were counted.

Each group's first work-item writes ``out[0u - 1u]`` (groups 0 and 1) or ``out[0u - 2u]``
(every other group): 16 GiB past the start of ``out``, too far for a record, so the trace
keeps that offset beside the records, once per buffer. The budget holds groups 0 and 1; the
counting launch runs the groups near them too (0 to 10), which reach the other element."""

from __future__ import annotations

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest

KERNEL = """\
__kernel void far(__global int *out)
{
    uint i = get_global_id(0);
    out[i] = 1;
    if (i == 0)
        atomic_add(&out[0], 1);  /* every group runs in every launch: no plain launch */
    if (get_local_id(0) == 0) {
        uint at = get_group_id(0) < 2 ? 0u - 1u : 0u - 2u;
        out[at] = 2;
    }
}
"""

HEADER = """\
/*---
name = "Writes through an index that wrapped below zero"
family = "custom"
kernel = "far"
global = ["256"]
local = ["16"]
[args.out]
buffer = "int"
count = "256"
contents = "zeros"
access = "write"
---*/
#line 1
"""


def test_a_window_names_the_far_element_its_own_groups_reached(executor, device, tmp_path):
    path = tmp_path / "far.cl"
    path.write_text(HEADER + KERNEL, encoding="utf-8")
    run = RunRequest(load_variant_file(path), {}, device_key=device.key)
    # Each group of 16 makes about 16 + 2 records of 8 bytes, with values 12 bytes: room
    # for two groups.
    request = TraceRequest(run, center=(0, 0, 0), budget_bytes=2 * 20 * 12)
    traced = executor.trace(request, keep_trace=True)
    assert traced.trace is not None, traced.result.summary()
    assert [g[0] for g in traced.trace.groups_traced] == [0, 1]
    (finding,) = [f for f in traced.analysis.findings if f.kind == "out-of-bounds"]
    # Before, the offset kept was the first one any counted group reached, and a second one
    # made it unknown: "out at indices past the end (wrapped ...; one of them out[...])".
    assert finding.elements == (2**32 - 1,), finding.message
    assert "out[4294967295] (-1 wrapped as a 32-bit unsigned index" in finding.message
    assert "4294967294" not in finding.message
