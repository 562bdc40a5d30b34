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
    assert result.report_json["complete"] is True


def test_a_race_through_a_copy_says_to_wait_for_it(traced):
    (race,) = traced("copy_barrier_is_no_wait").analysis.findings
    assert "a barrier does not wait for it" in race.message
    assert "wait_group_events" in race.message and "line 7" in race.message


def test_differing_barrier_flags_are_named_not_a_missing_barrier(traced):
    (finding,) = traced("barrier_flags_differ").analysis.findings
    assert "different fence flags" in finding.message
    assert "CLK_LOCAL_MEM_FENCE by 8" in finding.message
    assert "CLK_GLOBAL_MEM_FENCE by 8" in finding.message
    assert "no barrier between" not in finding.message
