"""Kernels of tests/trace/truth5, each finding checked by hand against the kernel at a small
size (the same findings were seen above ``QUICK_BUILD_WORK_ITEMS`` work-items, the optimised
trace build): the right kind, line, buffer and elements, and nothing where the kernel is
right. The comments say how each was worked out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.robustness.helpers import cli

FOLDER = Path(__file__).parent / "truth5"

pytestmark = pytest.mark.usefixtures("fast_cli")


def _report(name: str) -> dict:
    outcome = cli("trace", "--kernel-file", str(FOLDER / name), "--json")
    assert outcome.out.lstrip().startswith("{"), outcome.out + outcome.err
    report = json.loads(outcome.out)
    assert report["complete"], report
    return report


def _found(report: dict) -> list[tuple]:
    return sorted((f["kind"], f["line"], f.get("buffer"), f["count"]) for f in report["findings"])


def test_a_histogram_counted_atomically_has_nothing_to_report():
    # bins zeroed, a barrier, atomic_inc into the local bins, a barrier, atomic_add out
    assert _found(_report("histo.cl")) == []


def test_a_partial_tile_and_a_private_element_set_on_one_path_are_read_unset():
    # src has 60 floats: group 3 loads tile[0..11] only. Line 31 (l > 0) reads tile[l - 1]:
    # tile[12..14] at l = 13..15; line 32 reads tile[(l + 1) & 15]: tile[12..15] at l = 11..14.
    # acc[0] is set only where l > 0, and line 33 reads it: l = 0 of each of the 4 groups.
    report = _report("tiles_edge.cl")
    assert _found(report) == [
        ("uninitialized", 31, "tile", 3),
        ("uninitialized", 32, "tile", 4),
        ("uninitialized", 33, "acc", 4),
    ]
    messages = {f["line"]: f["message"] for f in report["findings"]}
    assert "e.g. tile[12], tile[13], tile[14])" in messages[31]
    assert "e.g. tile[12], tile[13], tile[14], tile[15])" in messages[32]
    assert "reads acc[0] of the private array acc" in messages[33]


def test_a_reduction_whose_last_step_has_no_barrier_after_it_races_with_the_read():
    # the barrier leads each step: the last step's t[0] += t[1] (l = 0, line 26) and every
    # work-item's read of t[0] (line 28) share the phase after the fourth barrier
    report = _report("reduce_last.cl")
    [(kind, line, buffer, _)] = _found(report)
    assert (kind, line, buffer) == ("race", 26, "t")
    assert "line 26 updates it and line 28 reads it" in report["findings"][0]["message"]
