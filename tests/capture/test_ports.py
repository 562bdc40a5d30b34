"""Multi-kernel programs of our own (a BFS level loop, a blocked LU decomposition, a scan
then a scatter, a histogram then its normalisation, a sum in two passes), pyopencl's own
kernels and buffers passed in unusual ways: each is captured, and every launch replays from
its captured inputs and matches its captured output on the session's device."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from explorer.capture.replay import launch_variant
from explorer.engine.records import RunRequest

PORTS = {
    "bfs.py": ["visit", "advance"],
    "lu.py": ["diagonal", "perimeter", "internal"],
    "scan_scatter.py": ["block_scan", "scan_counts", "scatter"],
    "histogram.py": ["histogram", "normalise"],
    "reduction.py": ["partial_sums"],
    "arrays.py": [],  # pyopencl names its own kernels; see the test below
    "aliasing.py": ["add"],
}


def replay_all(executor, device, capture) -> list[str]:
    """The summary of every launch whose replay does not match the original run."""
    wrong = []
    for launch in capture.launches:
        request = RunRequest(launch_variant(capture, launch), {}, device_key=device.key, repeat=1)
        result = executor.run(request)
        if result.status != "verified" or result.verdict.compared_with != "the original run":
            wrong.append(f"{launch.label}: {result.summary()}")
    return wrong


@pytest.mark.parametrize("program", sorted(PORTS))
def test_every_launch_replays_and_matches_its_captured_output(program, captured, executor, device):
    capture = captured(program)
    kernels = list(dict.fromkeys(launch.kernel for launch in capture.launches))
    assert kernels[: len(PORTS[program])] == PORTS[program]
    assert all(launch.data for launch in capture.launches)
    assert replay_all(executor, device, capture) == []


def test_the_bfs_levels_hand_each_other_their_state(captured):
    capture = captured("bfs.py")
    visits = [launch for launch in capture.launches if launch.kernel == "visit"]
    assert len(visits) >= 4  # the host loop ran level after level
    # Each level starts from the costs the one before it left.
    for earlier, later in itertools.pairwise(visits):
        before = np.load(capture.path(later.args[5].before))
        assert np.array_equal(before, np.load(capture.path(earlier.args[5].after)))
    assert [a.changed for a in visits[-1].args if a.kind == "buffer"] == [False] * 6


def test_pyopencl_arrays_and_elementwise_kernels_are_captured(captured):
    capture = captured("arrays.py")
    kernels = [launch.kernel for launch in capture.launches]
    # 2 * x + x * y is pyopencl's own kernels, launched before ours; the sum is a reduction.
    assert kernels.index("shift_by") >= 2 and kernels[-1].startswith("reduce")
    shift = capture.find("shift_by")
    names = [a.name for a in shift.args]
    assert names == ["a__base", "a__offset", "b", "c__base", "c__offset", "n"]
    assert shift.args[1].value == 400  # the view starts 100 floats into z's buffer
    assert shift.args[0].memory == capture.find("axpbyz").args[0].memory


def test_an_in_place_launch_judges_the_name_the_kernel_writes(captured):
    capture = captured("aliasing.py")
    first = capture.find("add#1")
    assert first.args[0].memory == first.args[2].memory and first.local_size is None
    variant = launch_variant(capture, first)
    assert [b.name for b in variant.custom.results] == ["out"]
    assert "a was the same memory as out in the program" in variant.text
    second = capture.find("add#2")
    assert second.args[0].memory == second.args[1].memory == second.args[2].memory
    assert second.args[0].origin != second.args[1].origin
