"""Which work-groups a trace counts and records when the budget holds only some of them."""

import numpy as np

from explorer.engine.record.trace_launch import RECORD_BYTES, choose_window, groups_to_count

GRID = (16, 16, 1)
PER_GROUP = 1000  # records per group
BUDGET = 9 * PER_GROUP * RECORD_BYTES  # room for a 3x3 window


def test_a_budget_for_every_group_counts_every_group():
    assert groups_to_count(PER_GROUP, GRID, 256 * PER_GROUP * RECORD_BYTES, None) is None
    assert groups_to_count(0, GRID, BUDGET, (5, 5, 0)) is None  # nothing to estimate from


def test_a_small_budget_counts_the_groups_around_the_chosen_one_only():
    near = groups_to_count(PER_GROUP, GRID, BUDGET, (5, 5, 0))
    assert near is not None and 9 < near.size < 64
    coords = np.stack([near % 16, near // 16], axis=1)
    assert (np.abs(coords - [5, 5]).max(axis=1) <= 2).all()  # the nearest rings, no further

    records = np.full(16 * 16, np.inf)  # groups not counted can never be chosen
    records[near] = PER_GROUP
    window = choose_window(records, GRID, BUDGET, (5, 5, 0), None)
    assert sorted(zip(window % 16, window // 16, strict=True)) == [
        (x, y) for x in (4, 5, 6) for y in (4, 5, 6)
    ]


def test_when_the_estimate_was_low_the_window_stays_inside_the_counted_groups():
    near = groups_to_count(PER_GROUP, GRID, BUDGET, (0, 0, 0))
    records = np.full(16 * 16, np.inf)
    records[near] = PER_GROUP // 4  # the groups turned out smaller than the probe said
    window = choose_window(records, GRID, BUDGET, (0, 0, 0), None)
    assert set(window) <= set(near)
    assert records[window].sum() * RECORD_BYTES <= BUDGET
