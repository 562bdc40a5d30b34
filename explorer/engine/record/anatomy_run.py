"""Index anatomy of a traced run: the static anatomy of the kernel's accesses for its findings,
and, for the lines asked about (and the bug findings' lines where asked), an anatomy build
run after the trace to record the values (``explorer.trace.anatomy``).

The trace itself is never the anatomy build: a trace asked nothing runs as it did, and one
with no finding at a line costs no parse either.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from explorer.engine.record.traced_source import traced_source
from explorer.engine.records import RunRequest, RunResult
from explorer.trace.analysis import Category, registry
from explorer.trace.anatomy import AccessExplanation, TraceAnatomy, lines_up, recorded_anatomy
from explorer.trace.instrument import Instrumented, InstrumentError, static_anatomy
from explorer.trace.recorded import Finding, Trace, word_site


class Asked(Protocol):
    """What a trace request asks of the anatomy (``TraceRequest``'s fields)."""

    @property
    def run(self) -> RunRequest: ...
    @property
    def anatomy_lines(self) -> tuple[int, ...]: ...
    @property
    def anatomy_findings(self) -> bool: ...
    @property
    def anatomy_work_item(self) -> tuple[int, ...]: ...
    @property
    def center(self) -> tuple[int, int, int] | None: ...


class Recorded(Protocol):
    """What a trace's run gives back (``TraceOutcome``'s fields)."""

    @property
    def result(self) -> RunResult: ...
    @property
    def trace(self) -> Trace | None: ...
    @property
    def instrumented(self) -> Instrumented | None: ...


def finding_lines(findings: Sequence[Finding]) -> set[int]:
    """The lines of the bug findings and the notes (an access there is what they report;
    work-items that all store one value at one element are a note, and often the bug)."""
    return {
        f.line
        for f in findings
        if f.line is not None
        and f.work_items
        and registry.category(f.kind) in (Category.BUG, Category.NOTE)
    }


def trace_anatomy(
    request: Asked,
    trace: Trace,
    findings: Sequence[Finding],
    record: Callable[[tuple[int, ...], Ranges | None], Recorded],
    whole_window: bool = True,
) -> TraceAnatomy | None:
    """The anatomy of ``trace``'s accesses: static, and with values for the lines asked
    (``request.anatomy_lines``, and the bug findings' with ``anatomy_findings``), recorded by
    an anatomy build of the same launch (``record`` runs it for the lines, over the trace's
    window or the groups given). Without ``whole_window`` (a report, which explains the
    findings' work-items and the one asked about only) just the groups of those work-items
    are recorded. None where nothing needs it: no finding at a line and nothing asked
    (``anatomy_findings`` asks for the static anatomy of every access, as the window shows
    it on hover)."""
    asked = set(request.anatomy_lines)
    if request.anatomy_findings:
        asked |= finding_lines(findings)
    wanted = asked | {f.line for f in findings if f.line is not None and f.work_items}
    if not wanted and not request.anatomy_findings:
        return None
    made = traced_source(request.run)
    try:
        static = static_anatomy(made.source(), made.defines, made.cl_std, made.include_dirs)
    except (InstrumentError, ValueError):
        return None  # the trace build parsed it: only an odd source gets here, and no anatomy
    lines = tuple(sorted(line for line in asked if static.at_line(line)))
    if not lines:
        return TraceAnatomy(static)
    groups = None if whole_window else _box(_explained_groups(request, trace, findings, lines))
    outcome = record(lines, groups)
    build = outcome.instrumented.anatomy if outcome.instrumented is not None else None
    if outcome.trace is None or build is None:
        why = outcome.result.error or outcome.result.status
        return TraceAnatomy(static, lines, note=f"values not recorded: the anatomy build {why}")
    if not lines_up(outcome.trace.sites, trace):
        return TraceAnatomy(
            static, lines, note="values not recorded: the anatomy build's accesses differ"
        )
    return recorded_anatomy(build, outcome.trace)


Ranges = tuple[tuple[int, int], ...]


def _explained_groups(
    request: Asked, trace: Trace, findings: Sequence[Finding], lines: tuple[int, ...]
) -> set[tuple[int, int, int]]:
    """The work-groups of the work-items a report explains at ``lines``: each finding's
    first, and the one asked about (or the first that made an access there); and the group
    the trace's window surrounds, the one the window shows first."""
    groups: set[tuple[int, int, int]] = set()
    center = request.center
    if center is not None:
        groups.add((int(center[0]), int(center[1]), int(center[2])))
    for f in findings:
        if f.line in lines and f.work_items:
            g = f.work_items[0]
            groups.add((int(g[0]), int(g[1]), int(g[2])))
    for line in request.anatomy_lines:
        wi = _work_item_at(trace, line, request.anatomy_work_item)
        if wi is not None:
            x, y, z = (int(v) for v in trace.wi_group[wi])
            groups.add((x, y, z))
    return groups


def _box(groups: set[tuple[int, int, int]]) -> Ranges | None:
    """The ranges of groups that hold ``groups`` (None: no group to hold)."""
    if not groups:
        return None
    return tuple((min(g[d] for g in groups), max(g[d] for g in groups) + 1) for d in range(3))


@dataclass
class AnatomyNotes:
    """What the anatomy adds to a report: a line under each finding it explains (by the
    finding's index) and a section for the lines asked about."""

    findings: dict[int, str] = field(default_factory=dict)
    text: str = ""


def anatomy_report(
    request: Asked,
    trace: Trace,
    findings: Sequence[Finding],
    anatomy: TraceAnatomy | None,
    report: dict[str, Any],
) -> AnatomyNotes:
    """Each finding's anatomy (``report["findings"][i]["anatomy"]`` and a line of text), and
    the anatomy of each line asked about (``report["anatomy"]`` and a section of text)."""
    notes = AnatomyNotes()
    if anatomy is None:
        return notes
    for number, (finding, shown) in enumerate(zip(findings, report["findings"], strict=True)):
        explained = anatomy.explain_finding(trace, finding)
        if explained is None:
            continue
        shown["anatomy"] = explained.to_json()
        notes.findings[number] = "      " + explained.text_line()
    if not request.anatomy_lines:
        return notes
    sections = []
    report["anatomy"] = []
    for line in sorted(set(request.anatomy_lines)):
        explained_all = _at_line(anatomy, trace, line, request.anatomy_work_item)
        report["anatomy"].append({"line": line, "accesses": [e.to_json() for e in explained_all]})
        if not explained_all:
            sections.append(f"  line {line}: no access there that the traced work-items made")
        for e in explained_all:
            who = f"work-item {e.group}/{e.local}"
            recorded = "" if e.recorded else f" (static only{': ' + e.note if e.note else ''})"
            sections.append(f"  line {line}, {e.text}, {who}{recorded}:")
            sections.extend(f"    {chain}" for chain in e.chains() or ["no variable in its index"])
    notes.text = "\nIndex anatomy:\n" + "\n".join(sections) + "\n"
    return notes


def _at_line(
    anatomy: TraceAnatomy, trace: Trace, line: int, work_item: tuple[int, ...]
) -> list[AccessExplanation]:
    """The anatomy of the accesses at ``line`` by ``work_item`` (group then local id), or by
    the first traced work-item that made one."""
    wi = _work_item_at(trace, line, work_item)
    return [] if wi is None else anatomy.explain_at(trace, line, wi)


def _work_item_at(trace: Trace, line: int, work_item: tuple[int, ...]) -> int | None:
    """The trace's index of ``work_item`` (group then local id), or of the first traced
    work-item that made an access at ``line``; None where there is none."""
    if work_item:
        label = (list(work_item) + [0] * 6)[:6]
        match = np.flatnonzero(
            (trace.wi_group == np.array(label[:3])).all(axis=1)
            & (trace.wi_local == np.array(label[3:])).all(axis=1)
        )
    else:
        sites = [s.id for s in trace.sites if s.line == line]
        first = np.flatnonzero(np.isin(word_site(trace.word), sites))[:1]
        match = np.searchsorted(np.cumsum(trace.kept), first, side="right")
    return int(match[0]) if match.size else None
