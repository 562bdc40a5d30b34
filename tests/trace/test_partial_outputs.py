"""Outputs written in part on purpose (a stencil's border is in tests/kernels/complete): a
custom result starts from the contents its declaration gives, and the elements a kernel leaves
alone are those contents, not a finding. A family's output still promises every element: the
findings corpus's `coverage_never_written` keeps its finding (tests/trace/findings)."""

from __future__ import annotations

import pytest

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from tests.conftest import TEST_KERNELS

PARTIAL = TEST_KERNELS / "partial"

# (kind, line) of every finding, checked by hand.
EXPECTED = {
    # One anti-diagonal: neighbours 64 ints apart, a sector per work-item (a cost, no bug).
    "nw_diagonal": [("uncoalesced", 11)] * 3 + [("uncoalesced", 12)] * 2,
    # The trailing block of an LU step, from the column and row beside it.
    "lu_block": [],
    # Level 3 of a binary heap marks level 4 (nodes 15-30), each node by its one parent.
    "bfs_level": [],
    # Only x <= y: the zeros above the diagonal are the host's.
    "triangle": [],
    # 20,480 work-items, two of three store.
    "predicated_large": [],
}


def _trace(executor, device, path):
    run = RunRequest(load_variant_file(path), {}, device_key=device.key)
    traced = executor.trace(TraceRequest(run))
    assert traced.analysis is not None, traced.result.summary()
    return traced


def test_every_kernel_of_the_folder_is_checked():
    assert sorted(p.stem for p in PARTIAL.glob("*.cl")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_an_output_written_in_part_is_no_coverage_finding(executor, device, name):
    traced = _trace(executor, device, PARTIAL / f"{name}.cl")
    assert [(f.kind, f.line) for f in traced.analysis.findings] == EXPECTED[name]
    assert traced.report_json["complete"] is True
    assert traced.result.status in ("verified", "unchecked")
