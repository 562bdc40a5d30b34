"""The animation's cursor over a real trace (the tiled matmul at 32³, 16×16 work-groups):
stepping crosses the phases in order at the barriers, loops or stops at the end, and
stepping by line instead of by pass keeps the phase on screen."""

import pytest

from explorer.engine.header.catalog import find_variant
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from explorer.trace.grids import make_grids
from explorer.trace.playback import Playback

INNER_PRODUCT = 62  # kernels/matmul/tiled.cl: acc += Asub[ty][k] * Bsub[k][tx]


@pytest.fixture(scope="module")
def tiled(executor, device):
    request = RunRequest(
        find_variant("matmul", "tiled"),
        {"M": 32, "N": 32, "K": 32},
        local=(16, 16),
        device_key=device.key,
        input="random",
    )
    traced = executor.trace(TraceRequest(request), keep_trace=True)
    assert traced.trace is not None, traced.result.summary()
    return traced.trace


@pytest.fixture
def cursor(tiled):
    return Playback(tiled, make_grids(tiled, {})).cursor


def test_stepping_on_crosses_each_phase_in_turn_right_after_its_barrier(cursor):
    barriers = set(cursor.group_steps.barrier_steps())
    phases = [cursor.current.phase]
    while cursor.forward(loop=False):
        phases.append(cursor.current.phase)
        if phases[-1] != phases[-2]:
            assert phases[-1] == phases[-2] + 1  # no phase skipped, none revisited
            assert cursor.step - 1 in barriers  # the timeline's mark just before
    # K = 32 with 16×16 tiles: two tiles, each loaded then multiplied, then C stored
    assert phases[0] == 0 and phases[-1] == cursor.phases - 1 == 4
    assert len(phases) == len(cursor.steps)


def test_at_the_last_step_the_cursor_loops_back_or_stays(cursor):
    last = len(cursor.steps) - 1
    cursor.go(last)
    assert cursor.forward(loop=True) and cursor.step == 0
    cursor.go(last)
    assert not cursor.forward(loop=False) and cursor.step == last
    cursor.go(0)
    cursor.back()
    assert cursor.step == 0


def test_stepping_by_line_keeps_the_phase_and_gives_one_step_per_line(cursor):
    passes = [s for s in cursor.steps if s.phase == 3 and s.line == INNER_PRODUCT]
    assert [s.iteration for s in passes] == list(range(16))  # one step per k of the tile
    cursor.go(passes[5].index)
    by_pass = len(cursor.steps)
    cursor.set_by_iteration(False)
    assert cursor.current.phase == 3 and cursor.step == cursor.first_step_of(3)
    lines = [(s.phase, s.line) for s in cursor.steps]
    assert len(lines) == len(set(lines)) == by_pass - 2 * 15  # the two inner products fold
    cursor.set_by_iteration(True)
    assert cursor.current.phase == 3 and len(cursor.steps) == by_pass


def test_another_traced_group_starts_at_its_first_step(cursor):
    cursor.go(7)
    assert cursor.select_group((1, 1, 0))
    assert cursor.group == (1, 1, 0) and cursor.step == 0
    assert not cursor.select_group((2, 0, 0))  # outside the 2×2 groups: not traced
    assert cursor.group == (1, 1, 0)
