"""Attempts written as a learner writes them, not as the exercises' authors did
(``attempts_unseen/EXERCISE.ok-LABEL.cl`` and ``EXERCISE.bad-LABEL.cl``).

A right answer that differs from the solution (another loop form, a macro, a helper
function, another tile loading order or barrier placement, a renamed local array, float4
loads) passes: the trace diff against the solution never fails it. A wrong one fails with
the checks a person expects, and the sentence saying where it parts from the solution names
the right line in words that fit what happened (a work-item that stops early, one that goes
on too far, one that skips a load before a barrier)."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.engine.header.catalog import parse_variant
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from explorer.exercises import find_exercise, grade
from explorer.trace.diff import diff_traces

ATTEMPTS = Path(__file__).parent / "attempts_unseen"

# Right answers, each unlike the solution in the way its comment says. Those marked True
# are also traced against the solution to show that their accesses differ from it.
RIGHT = [
    ("coalesced-matvec", "float4", False),  # vload4: 16 sectors a request, as few as 512 B take
    ("transpose-tile", "renamed-tile", True),  # the tile is t[][], transposed on the way in
    ("tiled-matmul", "barrier-at-top", True),  # both barriers before the multiply
    ("stencil-halo", "halo-after-barrier", True),  # each halo cell read only by its writer
    ("naive-matmul", "helper-reverse", False),  # a helper function, macros, k from K - 1 down
]

# (exercise, attempt, the checks that fail, the parting line, words of the parting sentence)
WRONG = [
    # an early return before the barriers: barrier divergence; its work-items make no access
    (
        "tile-guard",
        "return-before-barrier",
        {"verified", "no-bug-finding"},
        None,
        "makes no access at all, where the solution reads A[",
    ),
    # the store's guard compares with the wrong sizes: the work-item stops after line 39
    (
        "transpose-tile",
        "guard-swapped",
        {"verified"},
        39,
        "after line 39: work-item (0, 0, 0) of work-group (2, 0, 0) makes no access after its "
        "access 2 (line 39), where the solution reads tile[",
    ),
    # lid <= s: one work-item too many reads past scratch
    (
        "tree-reduction",
        "le-s",
        {"no-bug-finding"},
        34,
        "makes an access more than the solution, its access 3: it reads scratch[256]",
    ),
    # the right halo is filled by work-item `items`, which does not exist
    (
        "stencil-halo",
        "halo-lid-items",
        {"verified", "no-bug-finding"},
        41,
        "your kernel has passed 1 more barrier by then: the solution makes this access before "
        "that barrier",
    ),
]


def _attempt(name: str, label: str) -> str:
    return (ATTEMPTS / f"{name}.{label}.cl").read_text(encoding="utf-8")


def _trace(exercise, source, executor, device, local=None):
    variant = parse_variant(source, exercise.folder / "attempt.cl", variant_id=exercise.name)
    request = RunRequest(
        variant=variant, sizes={}, device_key=device.key, repeat=1, warmup=0, local=local
    )
    traced = executor.trace(TraceRequest(request), keep_trace=True)
    assert traced.trace is not None, traced.result.summary()
    return traced.trace


def test_every_attempt_here_is_tested():
    tested = {f"{n}.ok-{a}.cl" for n, a, _ in RIGHT} | {f"{n}.bad-{a}.cl" for n, a, *_ in WRONG}
    tested |= {"stencil-halo.bad-renamed-parameter.cl", "local-size.bad-1024x1.cl"}
    assert {p.name for p in ATTEMPTS.glob("*.cl")} == tested


@pytest.mark.parametrize(
    ("name", "attempt", "compare"), RIGHT, ids=[f"{n}.{a}" for n, a, _ in RIGHT]
)
def test_a_right_answer_unlike_the_solution_passes(name, attempt, compare, executor, device):
    exercise = find_exercise(name)
    result = grade(exercise, _attempt(name, f"ok-{attempt}"), executor, device.key)
    assert result.passed, result.text()
    assert result.first_difference is None and result.parting == ""
    assert all(f.value is not None and f.check.holds(f.value) for f in result.figures)
    if compare:  # its accesses are not the solution's, and the grade does not mind
        mine = _trace(exercise, _attempt(name, f"ok-{attempt}"), executor, device)
        solution = _trace(exercise, exercise.solution_source, executor, device, mine.local_size)
        assert not diff_traces(mine, solution, values=False).identical  # the accesses differ


@pytest.mark.parametrize(
    ("name", "attempt", "failing", "line", "words"), WRONG, ids=[f"{n}.{a}" for n, a, *_ in WRONG]
)
def test_a_wrong_attempt_fails_saying_where_and_how_it_parts(
    name, attempt, failing, line, words, executor, device, on_pocl
):
    result = grade(find_exercise(name), _attempt(name, f"bad-{attempt}"), executor, device.key)
    assert not result.passed
    failed = {c.name for c in result.failed_checks}
    if not on_pocl:  # a race or an early return may happen to give the right answer elsewhere
        failed, failing = failed - {"verified"}, failing - {"verified"}
    assert failed == failing, result.text()
    assert result.parting_line == line, result.parting
    assert words in result.parting, result.parting
    assert "line None" not in result.text() and "differs in its missing" not in result.parting
    assert "differs in its extra" not in result.parting


def test_a_renamed_parameter_fails_naming_the_headers_names(executor, device):
    result = grade(
        find_exercise("stencil-halo"), _attempt("stencil-halo", "bad-renamed-parameter"),
        executor, device.key,
    )  # fmt: skip
    assert [(c.name, c.passed) for c in result.checks] == [("header", True), ("runs", False)]
    sentence = result.checks[1].sentence
    assert "keep the names the header gives them: in, out, n, tile (src is not one" in sentence
    assert "[args." not in sentence  # not the engine's advice to change the header


def test_a_local_size_the_constraints_refuse_is_not_the_devices_refusal(executor, device):
    result = grade(
        find_exercise("local-size"), _attempt("local-size", "bad-1024x1"), executor, device.key
    )
    runs = result.checks[-1]
    assert runs.name == "runs" and not runs.passed
    if device.max_work_group_size >= 1024:  # else the device refuses it first
        assert runs.sentence.startswith("The kernel's constraints refuse the launch")
        assert "L0 == L1" in runs.sentence
    assert "L1 = 1024" not in runs.sentence  # 1024 x 1024 fits no device


def test_a_file_saved_by_a_windows_editor_passes(executor, device):
    """A byte-order mark and CRLF line ends, as Notepad saves a file."""
    exercise = find_exercise("index-map")
    windows = "\ufeff" + exercise.solution_source.replace("\n", "\r\n")
    result = grade(exercise, windows, executor, device.key)
    assert result.passed, result.text()


def test_a_right_answer_traced_against_the_solution_still_passes(executor, device):
    """A front end that traces the attempt against the solution (to mark where they part)
    and grades that trace: the comparison's own findings are no bug of the attempt."""
    from explorer.exercises import against_solution, grade_traced, header_check

    exercise = find_exercise("tiled-matmul")
    source = _attempt("tiled-matmul", "ok-barrier-at-top")
    variant = parse_variant(source, exercise.folder / "attempt.cl", variant_id=exercise.name)
    request = RunRequest(variant=variant, sizes={}, device_key=device.key, repeat=1, warmup=0)
    traced = executor.trace(against_solution(exercise, request), keep_trace=True)
    assert any(f.kind == "differs" for f in traced.analysis.findings)  # they do part
    result = grade_traced(exercise, header_check(exercise, variant), traced)
    assert result.passed, result.text()
