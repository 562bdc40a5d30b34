"""A trace that says complete recorded everything, and one that cannot says why: kernels of
our own for each way a trace used to miss something and still say "complete"."""

from __future__ import annotations

import pytest

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from tests.conftest import TEST_KERNELS

COMPLETE = TEST_KERNELS / "complete"

# (kind, line) of every finding, and whether the trace is complete.
EXPECTED = {
    # Pointers kept in a private struct (set by a brace initialiser, read in a helper) and in
    # an array of pointers reach their buffers: traced, clean.
    "pointers_in_struct": ([], True),
    # NULL is a name of OpenCL C the front end knows: the kernel traces, clean.
    "null_pointer": ([], True),
    # sincos stores its second result through its pointer: every work-item writes c[0], the
    # groups race and so do the work-items of each group.
    "sincos_race": ([("race", 4), ("race", 4), ("coverage", 4)], True),
    # The first atomic_inc on count reads what local memory held before.
    "atomic_on_unwritten_local": ([("uninitialized", 4)], True),
    # The border is the host's: a result that starts from its contents promised nothing
    # about the elements the kernel leaves alone (no coverage finding).
    "stencil_interior": ([], True),
    # Past 4,095 barriers the records no longer tell phases apart: incomplete, and no race
    # made up in the last phase.
    "barriers_4200": ([("not-traced", None)], False),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_trace_records_everything_or_says_what_it_cannot(executor, device, name):
    run = RunRequest(load_variant_file(COMPLETE / f"{name}.cl"), {}, device_key=device.key)
    traced = executor.trace(TraceRequest(run))
    assert traced.analysis is not None, traced.result.summary()
    found = sorted(((f.kind, f.line) for f in traced.analysis.findings), key=str)
    findings, complete = EXPECTED[name]
    assert found == sorted(findings, key=str)
    assert traced.report_json["complete"] is complete
