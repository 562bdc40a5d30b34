"""What a whole work-group does together, traced: async copies are accesses of the group,
in flight from the call until a wait for them (a barrier does not wait for them); a copy, a
wait or a barrier's flags that the work-items of a group do not agree on is a divergence at
its line. Kernels of our own, racing and diverging, and correct ones that must stay quiet."""

from __future__ import annotations

import pytest

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from tests.conftest import TEST_KERNELS

GROUP_OPS = TEST_KERNELS / "group_ops"

# (kind, line, subkind) of every finding; each trace is complete.
EXPECTED = {
    # tile[l] read before wait_group_events: the copy on line 5 may still be writing it.
    "copy_read_before_wait": [("race", 5, "copy-in-flight")],
    # A barrier between the copy and the read does not complete the copy.
    "copy_barrier_is_no_wait": [("race", 5, "copy-in-flight")],
    # tile[] written on line 5 and copied out on line 6 with no barrier between.
    "copy_out_without_barrier": [("race", 5, "copy-in-flight")],
    # Copy in, wait, barrier, write, barrier, strided copy out, wait: nothing to report.
    "copy_in_and_out": [],
    # Only half the group reaches the copy (so half of tile[] is never written).
    "copy_in_condition": [
        ("barrier-divergence", 7, "copy"),
        ("uninitialized", 9, ""),
    ],
    # src + l * 4: each work-item names its own source.
    "copy_arguments_differ": [("barrier-divergence", 5, "copy-arguments")],
    # Only half the group waits.
    "wait_in_condition": [("barrier-divergence", 7, "")],
    # CLK_LOCAL_MEM_FENCE for half the group, CLK_GLOBAL_MEM_FENCE for the other: said so,
    # and no race made up across a barrier that is there.
    "barrier_flags_differ": [("barrier-divergence", 6, "flags")],
    # Flags computed at run time, the same for every work-item: they order local memory.
    "barrier_flags_at_run_time": [],
    # A wait ends only the copies whose event it names. Copies into a[] (ea) and b[] (eb),
    # a wait for ea only, then b[] is read: the copy on line 6 may still be writing it.
    "copy_wait_other_event": [("race", 6, "copy-in-flight")],
    # The second copy is given the first one's event and returns it: one wait ends both.
    "copy_shared_event": [],
    # evs[0] and evs[1] waited together with wait_group_events(2, evs).
    "copy_events_array": [],
    # wait_group_events(2, evs) names evs[0] and evs[1] only: a[] and b[] are safe to read,
    # c[], copied on line 8 for evs[2], is read on line 10.
    "copy_events_array_in_part": [("race", 8, "copy-in-flight")],
    # The waits are in a helper given a pointer to the event: which events they name is not
    # followed, so the trace says so (incomplete) instead of taking them as waits for all.
    "copy_wait_in_helper": [("not-traced", 3, "")],
}


@pytest.fixture(scope="module")
def traced(executor, device):
    done = {}

    def trace(name):
        if name not in done:
            variant = load_variant_file(GROUP_OPS / f"{name}.cl")
            run = RunRequest(variant, {}, device_key=device.key, input="random")
            done[name] = executor.trace(TraceRequest(run))
        return done[name]

    return trace


def test_every_kernel_of_the_folder_is_checked():
    assert sorted(p.stem for p in GROUP_OPS.glob("*.cl")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_group_operations_give_exactly_their_findings(traced, name):
    result = traced(name)
    assert result.analysis is not None, result.result.summary()
    found = [(f.kind, f.line, f.subkind) for f in result.analysis.findings]
    assert sorted(found) == sorted(EXPECTED[name])
    # complete unless the trace named what it could not follow
    assert result.report_json["complete"] is all(f[0] != "not-traced" for f in found)


def test_a_race_through_a_copy_says_to_wait_for_it(traced):
    (race,) = traced("copy_barrier_is_no_wait").analysis.findings
    assert "a barrier does not wait for it" in race.message
    assert "names other events" not in race.message
    assert "wait_group_events" in race.message and "line 7" in race.message


def test_differing_barrier_flags_are_named_not_a_missing_barrier(traced):
    (finding,) = traced("barrier_flags_differ").analysis.findings
    assert "different fence flags" in finding.message
    assert "CLK_LOCAL_MEM_FENCE by 8" in finding.message
    assert "CLK_GLOBAL_MEM_FENCE by 8" in finding.message
    assert "no barrier between" not in finding.message


@pytest.mark.parametrize(
    "name, buffer, copy, wait, read",
    [("copy_wait_other_event", "b", 6, 7, 8), ("copy_events_array_in_part", "c", 8, 9, 10)],
)
def test_a_copy_whose_event_no_wait_named_races_with_the_read(
    traced, name, buffer, copy, wait, read
):
    (race,) = traced(name).analysis.findings
    assert race.buffer == buffer and race.other_lines == (copy, read)
    assert f"line {read} reads {buffer}[]" in race.message
    assert f"the wait_group_events on line {wait} names other events" in race.message
