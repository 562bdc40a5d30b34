"""Grading judges an attempt on random data too where the exercise's declared input can hide
a bug: with A all ones, reading A's subscripts swapped gives the right product, its trace
verifies, and the attempt still fails its ``verified`` check, in words that name the probe."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.exercises import Exercise, grade

SOLUTION = Path(__file__).parents[2] / "resources" / "exercises" / "02-naive-matmul" / "solution.cl"


@pytest.fixture(scope="module")
def ones_exercise(tmp_path_factory):
    """The naive-matmul exercise at 16³ with A declared all ones (a placeholder)."""
    folder = tmp_path_factory.mktemp("ones-matmul")
    source = SOLUTION.read_text(encoding="utf-8")
    source = source.replace("M = 24\nN = 16\nK = 20", "M = 16\nN = 16\nK = 16")
    source = source.replace(
        '[args.A]\nbuffer = "float"\ncount = "M * K"\naccess = "read"',
        '[args.A]\nbuffer = "float"\ncount = "M * K"\naccess = "read"\ncontents = "ones"',
    )
    assert 'contents = "ones"' in source and "K = 16" in source
    (folder / "start.cl").write_text(source, encoding="utf-8")
    (folder / "solution.cl").write_text(source, encoding="utf-8")
    return Exercise(98, "ones-matmul", "A matmul on ones", "", (), folder)


def test_an_attempt_right_only_on_the_declared_ones_fails_its_verified_check(
    executor, device, ones_exercise
):
    attempt = ones_exercise.solution_source.replace("A[row * K + k]", "A[k * K + row]")
    assert attempt != ones_exercise.solution_source
    graded = grade(ones_exercise, attempt, executor, device.key)
    assert not graded.passed, graded.text()
    failed = {c.name: c.sentence for c in graded.failed_checks}
    assert set(failed) == {"verified"}, graded.text()
    assert failed["verified"].startswith(
        "The result is right on the declared contents but wrong on random data at"
    )
    assert "the declared contents cannot show this bug (A is 1 everywhere)" in failed["verified"]
    assert "WRONG on random data" in graded.summary


def test_the_right_attempt_passes_on_random_data_too(executor, device, ones_exercise):
    graded = grade(ones_exercise, ones_exercise.solution_source, executor, device.key)
    assert graded.passed, graded.text()
    verified = next(c for c in graded.checks if c.name == "verified")
    assert verified.sentence == "The result matches the reference, also on random data."
