"""``python -m explorer exercise list|check``: the exercises in order, and grading a file
with exit codes a course's CI can use (0 passed, 1 not yet, 2 usage error)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.exercises import exercises, find_exercise
from tests.robustness.helpers import cli

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.usefixtures("fast_cli")


def test_list_names_the_exercises_in_order():
    done = cli("exercise", "list")
    assert done.code == 0
    lines = [line for line in done.out.splitlines() if line[:3].strip().rstrip(".").isdigit()]
    assert len(lines) == len(exercises()) >= 12
    for number, (line, exercise) in enumerate(zip(lines, exercises(), strict=True), start=1):
        assert line.split()[:2] == [f"{number}.", exercise.name]
        assert exercise.title in line


def test_list_as_json_holds_texts_hints_and_starting_files_but_no_solution():
    done = cli("exercise", "list", "--json")
    assert done.code == 0
    shown = json.loads(done.out)["exercises"]
    assert [e["name"] for e in shown] == [e.name for e in exercises()]
    for record, exercise in zip(shown, exercises(), strict=True):
        assert record["hints"] == list(exercise.hints) and len(record["hints"]) >= 2
        assert Path(record["start"]).read_text(encoding="utf-8") == exercise.start_source
        assert "solution" not in json.dumps(record).lower().replace("solution.cl", "")
    sized = next(e for e in shown if e["name"] == "local-size")
    assert sized["local_size_yours"] is True


def test_check_passes_the_solution_with_exit_0(tmp_path):
    attempt = tmp_path / "mine.cl"
    attempt.write_text(find_exercise("tiled-matmul").solution_source, encoding="utf-8")
    done = cli("exercise", "check", "tiled-matmul", str(attempt), "--json")
    assert done.code == 0, done.err
    grade = json.loads(done.out)
    assert grade["passed"] is True and grade["first_difference"] is None
    assert [c["name"] for c in grade["checks"]] == [
        "header", "runs", "verified", "no-bug-finding", "figure:loads_per_element:A",
    ]  # fmt: skip
    assert grade["figures"][0]["value"] == 2.0 and grade["figures"][0]["passed"] is True


def test_check_fails_the_start_with_exit_1_and_names_the_line_without_the_solution(tmp_path):
    exercise = find_exercise("coalesced3-warp-sync")
    attempt = tmp_path / "mine.cl"
    attempt.write_text(exercise.start_source, encoding="utf-8")
    done = cli("exercise", "check", "coalesced3-warp-sync", str(attempt))
    assert done.code == 1, done.err
    assert "NOT YET  coalesced3-warp-sync" in done.out
    assert "[no] The trace finds a bug at line 73 (race)" in done.out
    assert "Your kernel parts from the solution at line 73:" in done.out
    assert "stride" not in done.out  # the solution's loop is not shown


def test_check_refuses_an_unknown_exercise_or_a_missing_file_with_exit_2(tmp_path):
    unknown = cli("exercise", "check", "no-such", str(tmp_path / "x.cl"))
    assert unknown.code == 2
    assert "no exercise 'no-such'; the exercises are: index-map, naive-matmul" in unknown.err
    missing = cli("exercise", "check", "index-map", str(tmp_path / "x.cl"))
    assert missing.code == 2
    assert "does not exist" in missing.err and "x.cl" in missing.err


def test_check_takes_an_exercise_by_number(tmp_path):
    attempt = tmp_path / "mine.cl"
    attempt.write_text(find_exercise("index-map").solution_source, encoding="utf-8")
    done = cli("exercise", "check", "1", str(attempt))
    assert done.code == 0 and "PASSED  index-map" in done.out


def test_the_command_runs_as_a_program(tmp_path):
    """The real entry point, in its own process: a file without a header fails its first
    check (exit 1), and the JSON is one object."""
    attempt = tmp_path / "mine.cl"
    attempt.write_text("__kernel void k(__global float* x) { x[0] = 1.0f; }\n")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "explorer",
            "exercise",
            "check",
            "index-map",
            str(attempt),
            "--json",
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stderr
    grade = json.loads(done.stdout)
    assert grade["passed"] is False
    assert grade["checks"][0]["name"] == "header"
    assert "no catalog header" in grade["checks"][0]["sentence"]
