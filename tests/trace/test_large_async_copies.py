"""Async copies a trace once could not take.

- A kernel whose two async copies write one local tile, or copy one out twice, traced above
  the size a CPU trace builds unoptimised for (``QUICK_BUILD_WORK_ITEMS``): PoCL 3.0's
  optimiser crashed the executor making that trace build's work-group function ("CRASHED ...
  signal 11", or ``std::bad_alloc``), though the kernel as written runs. The trace now builds
  it unoptimised there, and reports the race between the two copies as it does at a small
  size.
- An event variable named ``next``: its shadow was named as the trace's counter of events,
  and the trace build failed ("redefinition of '__tr_ev_next'").
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.engine.launch import prepare
from tests.robustness.helpers import cli

FOLDER = Path(__file__).parent / "large_copies"

pytestmark = pytest.mark.usefixtures("fast_cli")


def _trace(name: str) -> dict:
    outcome = cli("trace", "--kernel-file", str(FOLDER / name), "--json")
    assert outcome.out.lstrip().startswith("{"), outcome.out + outcome.err
    report = json.loads(outcome.out)
    assert "error" not in report, report
    return report


def test_two_copies_into_one_tile_trace_whole_with_their_race():
    assert prepare.QUICK_BUILD_WORK_ITEMS < 32768  # the size the optimised build is made for
    report = _trace("two_copies_one_tile.cl")
    assert report["complete"] and report["status"] == "unchecked"
    races = [f for f in report["findings"] if f["kind"] == "race"]
    # the copy on line 23 and the one on line 24 both write the tile; line 26 reads it while
    # the first is still in flight (only the second is waited for)
    assert races and {f["line"] for f in races} == {23}, races
    assert all(f["count"] == 32768 for f in races)


def test_one_tile_copied_out_twice_traces_whole_and_right():
    """Each group's tile goes to its own block of ``out`` and to its own block of the second
    half: no race, every element of ``out`` written."""
    report = _trace("two_copies_out_of_one_tile.cl")
    assert report["complete"] and report["status"] == "unchecked"
    assert report["findings"] == []
    assert report["records"] > 0


def test_an_event_named_next_is_followed():
    report = _trace("event_named_next.cl")
    assert report["complete"] and report["status"] == "unchecked"
    assert report["findings"] == []
