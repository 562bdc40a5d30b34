"""Grading an attempt: run it, verify it, trace it, read its findings and figures, and say
where its accesses part from the solution's.

An attempt is the learner's whole kernel file, header included. It reaches the engine as
any kernel file does (:func:`~explorer.engine.header.catalog.parse_variant`, a
:class:`~explorer.engine.records.RunRequest`, one traced launch through the executor):
there is no second way to run it. The checks, in order, each a sentence the learner reads:

1. ``header``: the launch is the exercise's (its header unchanged, except the local size
   where the exercise lets the learner choose it);
2. ``runs``: it builds, the device accepts the launch, it ends;
3. ``verified``: the result matches the reference, on the input shown and, where that
   input can hide a bug (a constant or a picture), on random data (the random probe: a run
   of the attempt, since a trace judges the input shown only);
4. ``no-bug-finding``: the trace found no race, out-of-bounds access, uninitialised read,
   barrier divergence, and missed no access;
5. one check per figure of the exercise (``figure:NAME:BUFFER``).

The attempt is traced once, with the solution traced at the same launch and compared (the
trace diff): a failed grade names the first access where it parts from it, with its line,
and the same trace run (its findings telling the solution's accesses without its text) is
what a window shows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from explorer.engine.executor import Executor
from explorer.engine.header.catalog import CatalogError, parse_variant
from explorer.engine.header.signature import SignatureError, kernel_signature
from explorer.engine.record.trace_against import Against
from explorer.engine.record.trace_launch import TracedRun, TraceRequest
from explorer.engine.records import RunRequest, RunResult, Variant
from explorer.exercises.catalog import Exercise, FigureCheck
from explorer.frontend import ParseError
from explorer.trace.analysis import Analysis, Category, registry
from explorer.trace.analysis.differs import KIND as DIFFERS_KIND
from explorer.trace.diff import Difference, TraceDiff
from explorer.trace.recorded import SiteStats, Trace

GRADE_TIMEOUT_S = 30.0  # an attempt that loops forever fails after this long


@dataclass(frozen=True)
class Check:
    """One thing a passing attempt must do: ``name`` (stable, for programs), whether it
    passed, and a sentence that says what was seen."""

    name: str
    passed: bool
    sentence: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "passed": self.passed, "sentence": self.sentence}


@dataclass(frozen=True)
class Figure:
    """A figure the trace measured for a figure check: its value (None where the trace saw
    no access to the buffer) and the line it comes from (the worst line, where the figure is
    a worst line's)."""

    check: FigureCheck
    value: float | None
    line: int | None = None
    detail: str = ""  # what the value is made of, where it is a ratio
    renamed: str = ""  # the attempt's own name for the buffer, where it is not the exercise's

    def to_json(self) -> dict[str, Any]:
        return {
            "figure": self.check.figure,
            "buffer": self.check.buffer,
            "value": self.value,
            "line": self.line,
            "detail": self.detail,
            "at_most": self.check.at_most,
            "at_least": self.check.at_least,
            "passed": self.value is not None and self.check.holds(self.value),
        }


@dataclass(frozen=True)
class Grade:
    """The grade of one attempt. ``passed`` when every check passed. ``first_difference``
    is the trace diff's first access where the attempt parts from the solution (None when
    it passed, when either trace is missing, or when the two do the same accesses);
    ``parting`` says it in a sentence (or that every access is the solution's) and
    ``parting_line`` is its line in the attempt."""

    exercise: str
    passed: bool
    checks: tuple[Check, ...]
    figures: tuple[Figure, ...] = ()
    first_difference: Difference | None = None
    parting: str = ""
    parting_line: int | None = None
    summary: str = ""  # the run's one-line verdict
    device: str = ""
    # The whole trace diff against the solution (its ``first_records`` are what an execution
    # view marks); None where none was made. Not in the JSON.
    diff: TraceDiff | None = field(default=None, compare=False, repr=False)
    # The attempt's trace run the grade read (against the solution: what a window shows);
    # None where nothing was traced. Not in the JSON.
    traced: TracedRun | None = field(default=None, compare=False, repr=False)

    @property
    def failed_checks(self) -> tuple[Check, ...]:
        return tuple(c for c in self.checks if not c.passed)

    def to_json(self) -> dict[str, Any]:
        """``exercise check --json``: plain Python types only, never the solution's text."""
        first = self.first_difference
        return {
            "exercise": self.exercise,
            "passed": self.passed,
            "device": self.device,
            "summary": self.summary,
            "checks": [c.to_json() for c in self.checks],
            "figures": [f.to_json() for f in self.figures],
            "first_difference": None if first is None else _difference_json(first),
            "parting": self.parting,
            "parting_line": self.parting_line,
        }

    def text(self) -> str:
        """The grade as a person reads it: the verdict, each check, where it parts."""
        lines = [f"{'PASSED' if self.passed else 'NOT YET'}  {self.exercise}"]
        lines += [f"  [{'ok' if c.passed else 'no'}] {c.sentence}" for c in self.checks]
        if self.parting:
            lines.append(f"  {self.parting}")
        return "\n".join(lines)


def grade(
    exercise: Exercise,
    attempt_source: str,
    executor: Executor,
    device_key: str | None = None,
    path: str | Path | None = None,
    timeout_s: float = GRADE_TIMEOUT_S,
) -> Grade:
    """Grade ``attempt_source`` (a whole kernel file, header included) on the device
    ``device_key`` names (the executor's default where None). ``path`` is where the file
    lies (its name appears in messages; relative files in its header are found beside it);
    by default the exercise's own folder."""
    where = Path(path) if path is not None else exercise.folder / "attempt.cl"
    attempt_source = attempt_source.removeprefix("\ufeff")  # a Windows editor's UTF-8 mark
    try:
        # named by its file where it has one, as the window names the kernel it shows
        variant = parse_variant(attempt_source, where, variant_id=None if path else exercise.name)
    except CatalogError as exc:
        return _failed(exercise, Check("header", False, f"The header cannot be read: {exc}"))
    header = header_check(exercise, variant)
    if not header.passed:
        return _failed(exercise, header)
    renamed = parameters_check(exercise, variant)
    if renamed is not None:
        return replace(_failed(exercise, header), checks=(header, renamed))
    request = _request(variant, device_key, timeout_s, None)
    traced = executor.trace(against_solution(exercise, request), keep_trace=True)
    local = traced.result.local_size
    probed = None
    if local is not None:
        probed = probe_run(traced.result, replace(request, local=local), executor)
    return grade_traced(exercise, header, traced, probed=probed)


SOLUTION = "the solution"  # how a learner reads the solution named


def against_solution(exercise: Exercise, request: RunRequest) -> TraceRequest:
    """The one trace a grade reads: the attempt's, with the solution traced at the same
    launch and compared (its differences told without the solution's text or lines)."""
    solution = parse_variant(
        exercise.solution_source, exercise.solution_path, variant_id="solution"
    )
    return TraceRequest(
        request,
        against=replace(solution, path=""),
        against_called=SOLUTION,
        against_quoted=False,
    )


def probe_run(traced: RunResult, request: RunRequest, executor: Executor) -> RunResult | None:
    """A run of the attempt, where its trace verified it on an input that can hide a bug
    (a trace judges the input shown only): it judges the random probe too. None where no
    such run is needed."""
    verdict = traced.verdict
    if verdict is None or not verdict.verified or not verdict.unprobed:
        return None
    return executor.run(replace(request, repeat=1, warmup=0, keep_output=False))


def header_check(exercise: Exercise, attempt: Variant) -> Check:
    """Whether ``attempt`` launches as the exercise does: its header may differ from the
    starting file's only in its name and ``[about]`` (and its local size where the learner
    chooses it)."""
    start = parse_variant(exercise.start_source, exercise.start_path, variant_id=exercise.name)
    if _launch_of(attempt, exercise) == _launch_of(start, exercise):
        return Check("header", True, "The header is the exercise's.")
    free = " (except its local size)" if exercise.local_size_yours else ""
    return Check(
        "header",
        False,
        f"The header differs from the exercise's: put the starting file's header back{free}; "
        "the kernel below it is yours to change.",
    )


def parameters_check(exercise: Exercise, attempt: Variant) -> Check | None:
    """A failed ``runs`` check where the attempt's kernel names its parameters otherwise
    than the exercise's header does (which passes each argument by name); None where they
    agree, or where the source cannot be read that far (the build then says why)."""
    start = parse_variant(exercise.start_source, exercise.start_path, variant_id=exercise.name)
    try:
        theirs = [p.name for p in kernel_signature(start.source, start.kernel)]
        ours = [p.name for p in kernel_signature(attempt.source, attempt.kernel)]
    except (SignatureError, ParseError):
        return None
    if sorted(ours) == sorted(theirs):
        return None
    unknown = [name for name in ours if name not in theirs]
    named = ""
    if unknown:
        verb = "is not one of them" if len(unknown) == 1 else "are not among them"
        named = f" ({', '.join(unknown)} {verb})"
    return Check(
        "runs",
        False,
        f"The kernel's parameters must keep the names the header gives them: "
        f"{', '.join(theirs)}{named}. The header passes each argument by name; rename "
        "variables inside the kernel as you like.",
    )


def figure_buffers(exercise: Exercise, diff: TraceDiff | None) -> dict[str, str]:
    """The attempt's own name for each buffer a figure of the exercise measures, where the
    attempt renamed it (a ``__local`` array called ``t`` where the solution says ``tile``):
    the buffers meet as the trace diff against the solution paired them."""
    wanted = {f.buffer for f in exercise.figures}
    if diff is None:
        return {}
    return {
        b.reference_name: b.buffer
        for b in diff.buffers
        if b.reference_name in wanted and b.buffer != b.reference_name
    }


def grade_traced(
    exercise: Exercise,
    header: Check,
    traced: TracedRun,
    probed: RunResult | None = None,
) -> Grade:
    """The grade of a traced attempt (what :func:`grade` does after the trace, for a caller
    that traced it already, best against the solution: :func:`against_solution`). Where
    the trace was compared with the solution, a failed grade says where they part, and
    figures are measured on the attempt's own names of the buffers. ``probed``: the run
    that judged the random probe (:func:`probe_run`), where the trace verified an input
    that can hide a bug; a wrong result there fails the ``verified`` check."""
    against = traced.against
    diff = against.diff if isinstance(against, Against) else None
    renamed = figure_buffers(exercise, diff)
    result = traced.result
    runs = _runs_check(exercise, result)
    checks = [header, runs]
    figures: tuple[Figure, ...] = ()
    if runs.passed and probed is not None:
        result = probed  # its verdict (and its summary) say what the trace could not see
    if runs.passed:
        checks.append(_verified_check(result))
        analysis = traced.analysis
        if analysis is None or traced.trace is None:
            checks.append(Check("no-bug-finding", False, "The trace did not run: " + _why(result)))
        else:
            checks.append(_findings_check(analysis, traced.trace))
            figures = tuple(
                measure(f, analysis, traced.trace, renamed.get(f.buffer)) for f in exercise.figures
            )
            checks += [_figure_check(f) for f in figures]
    grade_ = Grade(
        exercise=exercise.name,
        passed=all(c.passed for c in checks),
        checks=tuple(checks),
        figures=figures,
        summary=result.summary(),
        device=result.device,
        traced=traced,
    )
    if grade_.passed or diff is None:
        return grade_
    return with_parting(grade_, diff)


def with_parting(grade_: Grade, diff: TraceDiff) -> Grade:
    """``grade_`` with the trace diff of the attempt against the solution."""
    first = diff.first
    if diff.identical and diff.complete:
        return replace(grade_, parting=SAME_ACCESSES, diff=diff)
    if first is None:
        return replace(grade_, diff=diff)
    sentence = parting_sentence(first)
    return replace(
        grade_, first_difference=first, parting=sentence, parting_line=first.line, diff=diff
    )


SAME_ACCESSES = (
    "Your kernel makes the same accesses as the solution, in the same order and phases, and "
    "writes the same values: look at what the failed checks say (a barrier's fence flags, for "
    "instance)."
)


_VERBS = {"read": "reads", "write": "writes", "rmw": "updates", "atomic": "atomically updates"}


def parting_sentence(first: Difference) -> str:
    """Where an attempt parts from the solution, in words: the attempt's own access (its
    text), and what the solution does there without quoting the solution's source."""
    who = f"work-item {first.local} of work-group {first.group}"
    theirs = first.reference
    solution = (
        "the solution makes no such access"
        if theirs is None
        else f"the solution {_VERBS.get(theirs.op, theirs.op)} {theirs.buffer}"
        f"[{theirs.elements}] in phase {theirs.phase}"
    )
    if first.what == "missing":  # the attempt made no more accesses; the solution goes on
        if first.line is None:
            return (
                f"Your kernel parts from the solution at its first access: {who} makes no "
                f"access at all, where {solution}."
            )
        return (
            f"Your kernel parts from the solution after line {first.line}: {who} makes no "
            f"access after its access {first.position} (line {first.line}), where "
            f"{solution}."
        )
    ours = f"it {first.mine.words()}" if first.mine else "it makes no such access"
    if first.what == "extra":
        return (
            f"Your kernel parts from the solution at line {first.line}: {who} makes an access "
            f"more than the solution, its access {first.position + 1}: {ours}; the solution "
            "has made all of its accesses by then."
        )
    return (
        f"Your kernel parts from the solution at line {first.line}: {who}, at its access "
        f"{first.position + 1}, differs in its {first.what}: {ours}; "
        f"{solution}{_barriers_between(first)}."
    )


def _barriers_between(first: Difference) -> str:
    """Where the phases differ: how many more barriers one kernel has passed by then."""
    if first.what != "phase" or first.mine is None or first.reference is None:
        return ""
    more = first.reference.phase - first.mine.phase
    count = f"{abs(more)} more barrier{'s' if abs(more) != 1 else ''}"
    if more > 0:
        return f" (the solution has passed {count} by then)"
    return (
        f" (your kernel has passed {count} by then: the solution makes this access before "
        f"{'that barrier' if abs(more) == 1 else 'those barriers'})"
    )


def _difference_json(first: Difference) -> dict[str, Any]:
    """The trace diff's first difference, less the solution's source text and lines."""
    shown = first.to_json()
    if shown["reference"] is not None:
        shown["reference"] = {
            k: v for k, v in shown["reference"].items() if k not in ("text", "line")
        }
    return shown


# -- the checks ------------------------------------------------------------------------


def _request(
    variant: Variant, device_key: str | None, timeout_s: float, local: tuple[int, ...] | None
) -> RunRequest:
    presets = variant.model.input_presets
    preset = presets[0] if presets == ("declared",) else ("iou" if "iou" in presets else "random")
    return RunRequest(
        variant=variant,
        sizes={},
        local=local,
        device_key=device_key,
        input=preset,
        repeat=1,
        warmup=0,
        timeout_s=timeout_s,
        # The arrays come back with the grade's trace: the window animates that trace, its
        # buffers drawn with the values the attempt ran on and its wrong output in Result.
        keep_output=True,
    )


def _launch_of(variant: Variant, exercise: Exercise) -> Variant:
    """``variant`` without what the learner may change: its name, text and file."""
    local = () if exercise.local_size_yours else variant.local_size
    return replace(
        variant, id="", name="", source_ref="", bug="", text="", path="", source="",
        local_size=local,
    )  # fmt: skip


def _why(result: RunResult) -> str:
    if result.refused is not None:
        return str(result.refused)
    first = (result.error or "").strip().splitlines()
    return first[0] if first else result.status


def _runs_check(exercise: Exercise, result: RunResult) -> Check:
    if result.refused is not None:
        # only the header's constraints refuse it: the device itself would take it
        who = (
            "The kernel's constraints refuse"
            if result.refused.overridable
            else ("The device refuses")
        )
        return Check("runs", False, f"{who} the launch: {result.refused}")
    if result.error is not None:
        log = result.build_log or ""
        errors = [line for line in log.splitlines() if "error" in line.lower()]
        detail = errors[0].strip() if errors else _why(result)
        if result.error_kind == "build":
            return Check("runs", False, f"The kernel does not build: {detail}")
        return Check("runs", False, f"The kernel did not finish ({result.status}): {detail}")
    if exercise.local_size_yours:
        local = "×".join(map(str, result.local_size or ()))
        return Check("runs", True, f"The device accepts the local size {local}.")
    return Check("runs", True, "The kernel builds and runs.")


def _verified_check(result: RunResult) -> Check:
    verdict = result.verdict
    if result.status == "verified":
        if verdict is not None and verdict.probed:
            return Check("verified", True, "The result matches the reference, also on random data.")
        return Check("verified", True, "The result matches the reference.")
    if verdict is not None and verdict.wrong_on_probe_only:
        shown = verdict.shown_input or "the input shown"
        why = f" ({verdict.hides})" if verdict.hides else ""
        return Check(
            "verified",
            False,
            f"The result is right on {shown} but wrong on random data at "
            f"{verdict.probe_mismatches} elements (largest error "
            f"{verdict.probe_max_abs_error:.3g}, seed {verdict.probe_seed}): {shown} cannot "
            f"show this bug{why}.",
        )
    if result.error is not None or result.refused is not None:
        return Check("verified", False, f"The run on random data failed: {_why(result)}")
    if verdict is not None and verdict.checked:
        return Check(
            "verified",
            False,
            f"The result is wrong at {verdict.mismatches} elements "
            f"(largest error {verdict.max_abs_error:.3g}).",
        )
    return Check("verified", False, f"The result was not checked: {result.summary()}")


def _findings_check(analysis: Analysis, trace: Trace) -> Check:
    kinds = (Category.BUG, Category.TRACE)
    # A trace made against a reference (the solution) holds where the two part: no bug of
    # the attempt's own, and a right answer may part from the solution anywhere.
    bad = [
        f
        for f in analysis.findings
        if registry.category(f.kind) in kinds and f.kind != DIFFERS_KIND
    ]
    if not bad and trace.complete:
        return Check("no-bug-finding", True, "The trace finds no bug.")
    if not bad:
        return Check("no-bug-finding", False, "The trace is incomplete: it cannot vouch for it.")
    first = bad[0]
    where = f" at line {first.line}" if first.line is not None else ""
    others = len(bad) - 1
    more = f" (and {others} more finding{'s' if others != 1 else ''})" if others else ""
    return Check("no-bug-finding", False, f"The trace finds a bug{where} ({first.kind}): "
                 f"{first.message}{more}")  # fmt: skip


def measure(
    check: FigureCheck,
    analysis: Analysis,
    trace: Trace | None = None,
    buffer: str | None = None,
) -> Figure:
    """The figure ``check`` names, as the analysis measured it (``sectors_over_needed``
    also reads the width of each access from ``trace``); on ``buffer`` where the attempt
    calls the exercise's buffer so."""
    if buffer is not None and buffer != check.buffer:
        figure = measure(replace(check, buffer=buffer), analysis, trace)
        return replace(figure, check=check, renamed=buffer)
    if check.figure == "loads_per_element":
        loads = analysis.loads_per_element.get(check.buffer)
        return Figure(check, None if loads is None else float(loads["mean"]))
    sites = [s for s in analysis.sites if s.buffer == check.buffer]
    if check.figure == "items_per_request":
        requests = sum(s.requests for s in sites)
        value = sum(s.accesses for s in sites) / requests if requests else None
        return Figure(check, value)
    if check.figure == "sectors_over_needed":
        return _sectors_over_needed(check, sites, trace)
    measured = [(float(v), s.line) for s in sites if (v := getattr(s, check.figure)) is not None]
    if not measured:
        return Figure(check, None)
    value, line = max(measured)
    return Figure(check, value, line)


SECTOR_BYTES = 32


def _sectors_over_needed(check: FigureCheck, sites: list[SiteStats], trace: Trace | None) -> Figure:
    """The worst line's sectors per warp request over the fewest sectors the bytes its
    work-items ask for fit in (each access as wide as the site's widest record)."""
    worst: tuple[float, int, str] | None = None
    for s in sites:
        if s.sectors_per_request is None or not s.requests or trace is None:
            continue
        ids = [t.id for t in trace.sites if t.line == s.line and t.text == s.text]
        chosen = np.isin(trace.site, ids)
        width = int(trace.size[chosen].max()) if chosen.any() else 4
        lanes = s.accesses / s.requests
        needed = max(1, math.ceil(width * lanes / SECTOR_BYTES - 1e-9))
        ratio = s.sectors_per_request / needed
        if worst is None or ratio > worst[0]:
            detail = f"{s.sectors_per_request:.3g} sectors where {needed} would do"
            worst = (ratio, s.line, detail)
    if worst is None:
        return Figure(check, None)
    return Figure(check, worst[0], worst[1], worst[2])


def _figure_check(figure: Figure) -> Check:
    check = figure.check
    name = f"figure:{check.figure}:{check.buffer}"
    label = check.label_for(figure.renamed) if figure.renamed else check.label
    if figure.value is None:
        return Check(name, False, f"The trace saw no access to measure {label}.")
    at = f" at line {figure.line}" if figure.line is not None else ""
    detail = f" ({figure.detail})" if figure.detail else ""
    said = f"{label[0].upper()}{label[1:]}: {figure.value:.3g}{detail}{at} ({check.bound})."
    if check.holds(figure.value):
        return Check(name, True, said)
    return Check(name, False, f"{said} {check.why}".strip())


def _failed(exercise: Exercise, check: Check) -> Grade:
    return Grade(exercise=exercise.name, passed=False, checks=(check,))
