"""An uninitialised read's count is of elements read, whatever the width of the cells the
analysis keys memory by: a double or a long is two 4-byte cells, and each read of one that no
work-item wrote counted twice ("count 2" beside the one work-item that read it).

Each count below was worked out by reading the kernel (tests/trace/wide_cells)."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest

KERNELS = Path(__file__).parent / "wide_cells"

EXPECTED = {
    # t[3] and t[7] are never written; line 8 reads t[l + 1] (work-items 2 and 6 read them),
    # line 9 reads t[l + 2] (work-items 1 and 5): two reads of one element each, per line.
    "local_doubles": [
        ("uninitialized", 8, "t", 2, ((0, 0, 0, 2, 0, 0), (0, 0, 0, 6, 0, 0))),
        ("uninitialized", 9, "t", 2, ((0, 0, 0, 1, 0, 0), (0, 0, 0, 5, 0, 0))),
    ],
    # Every one of the 32 work-items reads its own sums[i] before anything wrote it.
    "output_longs": [("uninitialized", 4, "sums", 32, None)],
    # p[5].y is never written; work-item 2 reads the whole double2 p[5]: one read.
    "local_double2": [("uninitialized", 9, "p", 1, ((0, 0, 0, 2, 0, 0),))],
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_an_unwritten_wide_element_read_once_counts_once(name, executor, device):
    variant = load_variant_file(KERNELS / f"{name}.cl")
    traced = executor.trace(TraceRequest(RunRequest(variant, {}, device_key=device.key)))
    assert traced.analysis is not None, traced.result.summary()
    found = []
    for f, (_, _, _, _, who) in zip(traced.analysis.findings, EXPECTED[name], strict=False):
        wis = None if who is None else tuple(tuple(w) for w in f.work_items)
        found.append((f.kind, f.line, f.buffer, f.count, wis))
    assert len(traced.analysis.findings) == len(EXPECTED[name]), traced.report_text
    assert found == EXPECTED[name], traced.report_text
