"""Every exercise graded on the device: its solution passes; its starting file and two
typical wrong attempts (``attempts/EXERCISE.LABEL.cl``) fail, each with the checks a person
would expect to fail and with the trace diff pointing at the line where the attempt's
accesses part from the solution's."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from explorer.exercises import exercises, find_exercise, grade
from explorer.exercises.grading import Grade

ATTEMPTS = Path(__file__).parent / "attempts"

# (exercise, attempt, the checks that fail, the line of the first access that differs from
# the solution's). "start" is the exercise's own starting file. Where a barrier is missing,
# the first access that differs is the first one made in the wrong phase: the access after
# the missing barrier; where a loop stops early, the access after the loop.
FAILING = [
    ("index-map", "start", {"verified"}, 35),  # rows and columns from swapped dimensions
    ("index-map", "off-by-one", {"verified", "no-bug-finding"}, 35),  # cols - col
    ("index-map", "row-stride", {"verified"}, 35),  # row * rows
    ("naive-matmul", "start", {"verified", "no-bug-finding"}, 50),  # B[k * K + col]
    ("naive-matmul", "a-by-column", {"verified"}, 50),  # A[k * M + row]
    ("naive-matmul", "loop-bound", {"verified"}, 51),  # k < N stops early: the store
    ("coalesced-matvec", "start", {"figure:sectors_over_needed:mat"}, 45),  # chunks
    ("coalesced-matvec", "wrong-step", {"verified"}, 45),  # coalesced, but each read 16 times
    ("coalesced-matvec", "vec-index", {"verified"}, 45),  # vec[lid]
    ("tiled-matmul", "start", {"verified", "no-bug-finding"}, 59),  # no barrier at all
    ("tiled-matmul", "first-barrier-only", {"no-bug-finding"}, 55),  # next step's copy
    ("tiled-matmul", "from-global", {"figure:loads_per_element:A"}, 59),  # A, not Asub
    ("tile-guard", "start", {"no-bug-finding"}, 57),  # kA <= K
    ("tile-guard", "row-guard-dropped", {"no-bug-finding"}, 57),  # rows past M read A
    ("tile-guard", "b-guard", {"verified"}, 58),  # kB < N
    ("transpose-tile", "start", {"verified"}, 42),  # unpadded: the tile's elements move
    ("transpose-tile", "unpadded", {"figure:bank_conflict_degree:tile"}, 42),
    ("transpose-tile", "not-transposed", {"verified"}, 47),  # tile[ty][tx]
    ("tree-reduction", "start", {"figure:items_per_request:scratch"}, 36),  # lid % (2s)
    ("tree-reduction", "strided-index", {"figure:bank_conflict_degree:scratch"}, 36),
    ("tree-reduction", "no-barrier-in-loop", {"verified", "no-bug-finding"}, 36),
    ("stencil-halo", "start", {"verified", "no-bug-finding"}, 44),  # no halo: the sum
    ("stencil-halo", "right-halo-slot", {"verified", "no-bug-finding"}, 41),  # tile[items]
    ("stencil-halo", "three-global-loads", {"figure:loads_per_element:in"}, 44),
    ("local-histogram", "start", {"no-bug-finding"}, 40),  # += on a local bin
    ("local-histogram", "bins-not-cleared", {"verified", "no-bug-finding"}, 40),
    ("local-histogram", "no-barrier-before-merge", {"verified", "no-bug-finding"}, 43),
    ("seed004-mem-fence", "start", {"verified", "no-bug-finding"}, 57),
    ("seed004-mem-fence", "no-barrier-before-sum", {"verified", "no-bug-finding"}, 64),
    ("seed004-mem-fence", "end-fence-kept", {"no-bug-finding"}, 57),  # the next row's clear
    ("coalesced3-warp-sync", "start", {"verified", "no-bug-finding"}, 73),  # p[0] += p[32]
    ("coalesced3-warp-sync", "loop-without-barrier", {"verified", "no-bug-finding"}, 69),
    ("coalesced3-warp-sync", "stride-too-large", {"verified", "no-bug-finding"}, 69),
]
# Attempts whose result depends on memory outside a buffer: tile-guard's start reads one
# element past the end of A on its last row, and whatever lies there (now and then an
# infinity) times the tile's zero can spoil that row of C, so "verified" may fail too.
OUTSIDE_A_BUFFER = {("tile-guard", "start")}
# The local-size exercise is graded on the launch the learner chooses: a local size the
# device or the kernel's constraints refuse never runs, so there is nothing to compare.
REFUSED = [
    ("local-size", "start", "16384 work-items"),  # 128 x 128
    ("local-size", "not-square", "L0 == L1"),  # 32 x 8
    ("local-size", "too-few", "L0 * L1 >= 64"),  # 4 x 4
]


def _docs_start_rows() -> dict[str, set[str]]:
    """What docs/exercises.md says each starting kernel fails ("figure": its figures)."""
    text = (Path(__file__).parents[2] / "docs" / "exercises.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| \d+ \| `([a-z0-9-]+)` \|[^|]*\|([^|]*)\|", text, re.M)
    return {name: {c.strip() for c in fails.split(",")} for name, fails in rows}


def _source(name: str, attempt: str) -> str:
    if attempt == "start":
        return find_exercise(name).start_source
    return (ATTEMPTS / f"{name}.{attempt}.cl").read_text(encoding="utf-8")


_GRADES: dict[tuple[str, str, str], Grade] = {}


def _graded(name: str, attempt: str, executor, device) -> Grade:
    """The grade of an attempt of :data:`FAILING`, graded once in this test process: the
    tests that read the same attempt's grade share it (a grade traces the attempt and the
    solution, and may run the attempt again on random contents)."""
    key = (name, attempt, device.key)
    if key not in _GRADES:
        _GRADES[key] = grade(find_exercise(name), _source(name, attempt), executor, device.key)
    return _GRADES[key]


def test_every_exercise_has_its_start_and_two_wrong_attempts_tested():
    tested = [(name, attempt) for name, attempt, *_ in FAILING + REFUSED]
    for exercise in exercises():
        attempts = [a for n, a in tested if n == exercise.name]
        assert "start" in attempts and len(attempts) >= 3, exercise.name
    files = {p.name for p in ATTEMPTS.glob("*.cl")}
    assert files == {f"{n}.{a}.cl" for n, a in tested if a != "start"}


@pytest.mark.parametrize("exercise", exercises(), ids=lambda e: e.name)
def test_the_solution_passes(exercise, executor, device):
    result = grade(exercise, exercise.solution_source, executor, device.key)
    assert result.passed, result.text()
    assert all(c.passed for c in result.checks)
    assert {c.name for c in result.checks} >= {"header", "runs", "verified", "no-bug-finding"}
    assert len(result.figures) == len(exercise.figures)
    assert all(f.value is not None and f.check.holds(f.value) for f in result.figures)
    assert result.first_difference is None and result.parting == ""


@pytest.mark.parametrize(
    ("name", "attempt", "failing", "line"), FAILING, ids=[f"{n}.{a}" for n, a, *_ in FAILING]
)
def test_a_wrong_attempt_fails_where_it_parts_from_the_solution(
    name, attempt, failing, line, executor, device, on_pocl
):
    result = _graded(name, attempt, executor, device)
    assert not result.passed
    failed = {c.name for c in result.failed_checks}
    if not on_pocl or (name, attempt) in OUTSIDE_A_BUFFER:
        # a race may happen to give the right answer on another device
        failed, failing = failed - {"verified"}, failing - {"verified"}
    assert failed == failing, result.text()
    assert result.first_difference is not None
    assert result.parting_line == result.first_difference.line == line, result.parting
    assert result.parting.startswith(f"Your kernel parts from the solution at line {line}:")
    assert f"line {line}" in result.text()
    assert result.diff is not None and result.diff.first == result.first_difference
    assert result.diff.first_records.size >= 1  # what the execution view marks
    if result.first_difference.what == "phase":  # a barrier missing (or one too many)
        assert "more barrier" in result.parting and "by then" in result.parting
    if attempt == "start" and on_pocl:  # as docs/exercises.md says
        kinds = {c.split(":")[0] for c in failing}
        assert _docs_start_rows()[name] == kinds


@pytest.mark.parametrize(("name", "attempt", "why"), REFUSED, ids=[a for _, a, _ in REFUSED])
def test_a_local_size_that_is_refused_fails_and_says_why(name, attempt, why, executor, device):
    result = grade(find_exercise(name), _source(name, attempt), executor, device.key)
    assert not result.passed
    assert [c.name for c in result.checks] == ["header", "runs"]
    assert result.checks[0].passed and not result.checks[1].passed
    assert why in result.checks[1].sentence
    assert result.first_difference is None
    if attempt == "start":
        assert _docs_start_rows()[name] == {"runs"}


@pytest.mark.parametrize("side", [8, 64])
def test_a_local_size_of_ones_own_passes_where_the_device_accepts_it(side, executor, device):
    exercise = find_exercise("local-size")
    chosen = f'local = ["{side}", "{side}"]'
    source = exercise.start_source.replace('local = ["128", "128"]', chosen)
    result = grade(exercise, source, executor, device.key)
    if side * side <= device.max_work_group_size:  # PoCL takes 64 x 64, a GPU of 1024 not
        assert result.passed, result.text()
        assert f"The device accepts the local size {side}×{side}." in result.text()
    else:
        assert not result.passed and "refuses the launch" in result.checks[1].sentence


def test_an_attempt_that_never_ends_is_stopped_and_fails(executor, device):
    exercise = find_exercise("tree-reduction")
    endless = exercise.start_source.replace("s < items; s *= 2", "s < items; s *= 1")
    # Never ends: any timeout stops it, and each second of it is a second of CPU spinning.
    result = grade(exercise, endless, executor, device.key, timeout_s=0.5)
    assert not result.passed
    runs = result.checks[-1]
    assert runs.name == "runs" and runs.sentence.startswith("The kernel did not finish (timeout)")


def test_a_changed_header_fails_before_anything_runs(executor, device):
    exercise = find_exercise("tiled-matmul")
    source = exercise.solution_source.replace("K = 16", "K = 8")
    result = grade(exercise, source, executor, device.key)
    assert not result.passed
    assert [c.name for c in result.checks] == ["header"]
    assert "put the starting file's header back" in result.checks[0].sentence
    # where the learner chooses the local size, the rest of the header is still fixed
    sized = find_exercise("local-size")
    loosened = sized.solution_source.replace('"L0 * L1 >= 64"', '"L0 * L1 >= 1"')
    assert not grade(sized, loosened, executor, device.key).passed


def test_a_kernel_that_does_not_build_fails_with_the_compiler_line(executor, device):
    exercise = find_exercise("index-map")
    source = exercise.start_source.replace("int row = get_global_id(0);", "int row = oops;")
    result = grade(exercise, source, executor, device.key)
    assert not result.passed
    runs = result.checks[-1]
    assert runs.name == "runs" and not runs.passed
    assert runs.sentence.startswith("The kernel does not build:") and "oops" in runs.sentence


def test_the_grade_as_json_names_the_first_difference_without_the_solutions_text(executor, device):
    exercise = find_exercise("coalesced3-warp-sync")
    result = grade(exercise, exercise.start_source, executor, device.key)
    shown = json.dumps(result.to_json())
    record = json.loads(shown)
    first = record["first_difference"]
    assert first["line"] == 73 and first["mine"]["text"] == "p[32]"
    assert first["reference"]["buffer"] == "partialDotProduct"
    assert "text" not in first["reference"] and "line" not in first["reference"]
    assert "get_local_id(0) + stride" not in shown  # the solution's own access
    assert "get_local_id(0) + stride" not in result.text()


def test_wrong_fence_flags_fail_though_every_access_is_the_solutions(executor, device):
    """A barrier that names only global memory orders no local access: the race is found,
    and the grade says the accesses themselves are the solution's."""
    exercise = find_exercise("seed004-mem-fence")
    source = exercise.solution_source.replace("CLK_LOCAL_MEM_FENCE", "CLK_GLOBAL_MEM_FENCE")
    result = grade(exercise, source, executor, device.key)
    assert not result.passed
    assert {c.name for c in result.failed_checks} == {"no-bug-finding"}
    assert "does not name CLK_LOCAL_MEM_FENCE" in result.checks[-1].sentence
    assert result.first_difference is None and result.parting_line is None
    assert result.parting.startswith("Your kernel makes the same accesses as the solution")


class _Counting:
    """The executor, with each trace request it is asked for kept."""

    def __init__(self, executor):
        self.executor, self.traces = executor, []

    def trace(self, request, **kwargs):
        self.traces.append(request)
        return self.executor.trace(request, **kwargs)

    def __getattr__(self, name):
        return getattr(self.executor, name)


def test_a_failed_attempt_is_graded_and_compared_from_one_trace(executor, device):
    exercise = find_exercise("naive-matmul")
    counting = _Counting(executor)
    result = grade(exercise, exercise.start_source, counting, device.key)
    assert not result.passed and result.parting_line == 50
    [request] = counting.traces  # the attempt, with the solution beside it: one trace
    assert request.against is not None and not request.against_quoted
    traced = result.traced
    assert traced is not None and traced.against.diff is result.diff
    differs = [f for f in traced.analysis.findings if f.kind == "differs"]
    assert differs and all("the solution reads B[" in f.message for f in differs)
    assert any("B[k * K + col]" in f.message for f in differs)  # the attempt's own, quoted
    shown = traced.report_text + json.dumps(traced.report_json)
    assert "k * N" not in shown and "solution.cl" not in shown  # never the solution's text
    assert "custom/solution" not in shown


def test_the_count_of_further_findings_is_said_in_good_english(executor, device):
    counts = []
    for name, attempt, *_ in FAILING[:12]:
        result = _graded(name, attempt, executor, device)
        for check in result.failed_checks:
            for n, plural in re.findall(r"and (\d+) more finding(s?)\)", check.sentence):
                assert (plural == "s") == (int(n) != 1), check.sentence
                counts.append(int(n))
    assert 1 in counts  # "1 more finding" is among them
