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
    # Two copies into tile[] at once, and no wait for either: the copies race with each
    # other, and each is never waited for.
    "copies_into_one_span": [
        ("race", 5, "copy-in-flight"),
        ("unwaited-copy", 5, ""),
        ("unwaited-copy", 6, ""),
    ],
    # A copy out whose event is dropped: nothing waits for it before the kernel ends.
    "copy_never_waited": [("unwaited-copy", 7, "")],
    # One call in a loop, the event shared: the second call fills tile[] while the first may
    # still be filling it; the wait after the loop ends both.
    "copy_again_before_wait": [("race", 8, "copy-in-flight")],
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


def test_copies_in_flight_into_one_span_and_never_waited_are_named_at_their_lines(traced):
    findings = traced("copies_into_one_span").analysis.findings
    race = next(f for f in findings if f.kind == "race")
    assert race.other_lines == (5, 6) and race.buffer == "tile"
    assert race.message.startswith(
        "Race on tile in phase 0: the async copy on line 5 writes tile[] and the async copy "
        "on line 6 writes the same elements while both may be in flight"
    )
    assert "and nothing waits for them" in race.message
    for line in (5, 6):
        (unwaited,) = [f for f in findings if f.kind == "unwaited-copy" and f.line == line]
        assert unwaited.buffer == "tile" and unwaited.count == 4  # every work-group
        assert unwaited.message.startswith(
            f"The async copy on line {line} (into tile[] from src[]) is never waited for: in 4 "
            "work-groups, no wait_group_events names its event before the kernel ends"
        )
    (dropped,) = traced("copy_never_waited").analysis.findings
    assert dropped.buffer == "out" and "(into out[] from tile[])" in dropped.message
    (again,) = traced("copy_again_before_wait").analysis.findings
    assert "the async copy on line 8, called again before a wait_group_events" in again.message


def test_a_copy_read_before_its_wait_is_one_race_not_also_unwaited(traced):
    """The race already says nothing waits for the copy: no second finding for it."""
    kinds = [f.kind for f in traced("copy_events_array_in_part").analysis.findings]
    assert kinds == ["race"]


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
