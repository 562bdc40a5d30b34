"""The shipped exercises: at least twelve, in order, covering what a course on tiling and
synchronisation needs, each complete (tests/install checks that the wheel holds them)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from explorer.engine.header.catalog import parse_variant
from explorer.exercises import ExerciseError, exercises, find_exercise
from explorer.exercises.grading import header_check

ROOT = Path(__file__).resolve().parents[2]


def test_at_least_twelve_exercises_in_order_covering_the_course():
    shipped = exercises()
    assert [e.number for e in shipped] == list(range(1, len(shipped) + 1))
    assert [e.name for e in shipped][:1] == ["index-map"]
    assert {e.name for e in shipped} >= {
        "index-map", "naive-matmul", "tiled-matmul", "transpose-tile", "tree-reduction",
        "stencil-halo", "local-histogram", "coalesced-matvec", "seed004-mem-fence",
        "tile-guard", "coalesced3-warp-sync", "local-size",
    }  # fmt: skip


@pytest.mark.parametrize("exercise", exercises(), ids=lambda e: e.name)
def test_each_exercise_has_a_text_progressive_hints_and_two_kernels_of_one_launch(exercise):
    assert exercise.title and len(exercise.text) > 100
    assert len(exercise.hints) >= 3  # unlocked one at a time, the last one nearly the answer
    assert exercise.start_source != exercise.solution_source
    start = parse_variant(exercise.start_source, exercise.start_path)
    solution = parse_variant(exercise.solution_source, exercise.solution_path)
    assert start.family == solution.family == "custom"
    assert header_check(exercise, solution).passed
    assert header_check(exercise, start).passed


def test_the_cost_exercises_name_a_figure_with_a_bound():
    costs = {e.name: e.figures for e in exercises() if e.figures}
    assert set(costs) == {
        "coalesced-matvec", "tiled-matmul", "transpose-tile", "tree-reduction", "stencil-halo",
    }  # fmt: skip
    figures = {f.figure for fs in costs.values() for f in fs}
    assert figures >= {"loads_per_element", "bank_conflict_degree"}
    assert figures & {"sectors_per_request", "sectors_over_needed"}
    assert all(f.why for fs in costs.values() for f in fs)


def test_only_the_local_size_exercise_lets_the_learner_change_the_header():
    assert [e.name for e in exercises() if e.local_size_yours] == ["local-size"]


def test_an_unknown_exercise_names_the_others():
    with pytest.raises(ExerciseError, match="the exercises are: index-map, naive-matmul"):
        find_exercise("matmul")


def _docs_table() -> list[list[str]]:
    text = (ROOT / "docs" / "exercises.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d+) \| `([a-z0-9-]+)` \|(.*)$", text, re.M)
    return [
        [number, name, *[c.strip() for c in rest.split("|")[:3]]] for number, name, rest in rows
    ]


def test_the_docs_list_every_exercise_with_its_figures_bounds():
    rows = _docs_table()
    assert [(int(r[0]), r[1]) for r in rows] == [(e.number, e.name) for e in exercises()]
    for row, exercise in zip(rows, exercises(), strict=True):
        figures = row[4]
        shown = re.findall(r"`(\w+)` (?:on|of) (\w+) at (most|least) ([\d.]+)", figures)
        bounds = [(f.figure, f.buffer, f.bound) for f in exercise.figures]
        assert [(f, b, f"at {w} {float(v):g}") for f, b, w, v in shown] == bounds, row
