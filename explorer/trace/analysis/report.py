"""The analysis as a person reads it: findings grouped by root cause, each group with one
piece of advice, then plain text (the JSON form is :meth:`Analysis.to_json`, with
:func:`groups_json` beside it).

Several findings often have one cause: a missing barrier makes races between every pair of
lines of a reduction, an index past the end of a buffer is out of bounds at its read and at
its write. A person fixes the cause once, so the cause is the heading and its advice is
written to be right when followed literally: a barrier is always placed where every
work-item of the group reaches it, never inside a branch that only some take. Which findings
share a cause, and the cause and advice in words, are each kind's own (its ``Detector``).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

from explorer.trace.analysis import registry
from explorer.trace.analysis.detector import Category, Detector, lines_of
from explorer.trace.analysis.result import Analysis
from explorer.trace.recorded import Finding, Trace

# A finding of a kind no module declares (an older trace's): it stands alone, as it says.
_UNKNOWN = Detector("", lambda ctx, units: [], order=0, category=Category.TRACE)


@dataclass(frozen=True)
class FindingGroup:
    """Findings with one root cause: the cause in words, what to do once, and the findings."""

    kind: str
    cause: str
    advice: str
    findings: tuple[Finding, ...]

    @property
    def lines(self) -> tuple[int, ...]:
        """Every source line the group's findings name, in order."""
        return lines_of(self.findings)

    def to_json(self, indices: list[int]) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "cause": self.cause,
            "advice": self.advice,
            "lines": list(self.lines),
            "findings": indices,
        }


def _kind(f: Finding) -> Detector:
    return registry.detector(f.kind) or _UNKNOWN


def _cause_key(
    f: Finding, explainers: dict[tuple[str, str | None], Finding]
) -> tuple[str, Hashable]:
    """Findings with the same key share a root cause: the kind that words it and its
    ``same_cause`` key, or those of the finding on the same buffer that explains them
    (``explained_by``)."""
    kind = _kind(f)
    if kind.explained_by:
        f = explainers.get((kind.explained_by, f.buffer), f)
        kind = _kind(f)
    return (f.kind, kind.same_cause(f))


def _describe(kind: Detector, findings: tuple[Finding, ...]) -> FindingGroup:
    """The group as ``kind`` (the kind whose finding is the root cause) words it."""
    return FindingGroup(findings[0].kind, kind.cause(findings), kind.advice(findings), findings)


def group_findings(findings: Sequence[Finding]) -> list[FindingGroup]:
    """The findings grouped by root cause, groups in the order of their first finding."""
    explainers: dict[tuple[str, str | None], Finding] = {}
    for f in findings:
        explainers.setdefault((f.kind, f.buffer), f)
    grouped: dict[tuple[str, Hashable], list[Finding]] = {}
    for f in findings:
        grouped.setdefault(_cause_key(f, explainers), []).append(f)
    return [
        _describe(registry.detector(kind) or _UNKNOWN, tuple(members))
        for (kind, _), members in grouped.items()
    ]


def groups_json(findings: Sequence[Finding]) -> list[dict[str, Any]]:
    """Each group as JSON, its findings as indices into ``findings``."""
    position = {id(f): i for i, f in enumerate(findings)}
    return [g.to_json([position[id(f)] for f in g.findings]) for g in group_findings(findings)]


def format_report(trace: Trace, analysis: Analysis, notes: dict[int, str] | None = None) -> str:
    """A plain-text report: summary, findings, per-site table, loads per element. ``notes``:
    a line to print under a finding, by its index in ``analysis.findings`` (its index
    anatomy)."""
    gx, gy, gz = trace.num_groups
    total = gx * gy * gz
    state = "complete" if trace.complete else "INCOMPLETE"
    lines = [
        f"Trace: {trace.records:,} records from {len(trace.groups_traced)} of {total} "
        f"work-group(s) ({state}).",
        f"Global memory: {analysis.global_bytes_read:,} bytes read, "
        f"{analysis.global_bytes_written:,} bytes written.",
        "",
    ]
    if analysis.findings:
        groups = group_findings(analysis.findings)
        position = {id(f): i for i, f in enumerate(analysis.findings)}
        lines.append(
            f"Findings ({len(analysis.findings)}), by root cause ({len(groups)} cause(s)):"
        )
        for number, group in enumerate(groups, 1):
            lines.append(f"{number}. [{group.kind}] {group.cause}")
            if group.advice:
                lines.append(f"   What to do: {group.advice}")
            for f in group.findings:
                where = f"line {f.line}" if f.line is not None else "kernel"
                phase = f", phase {f.phase}" if f.phase is not None else ""
                lines.append(f"  [{f.kind}] {where}{phase}: {f.message}")
                if f.work_items:
                    shown = "; ".join("({},{},{})/({},{},{})".format(*w) for w in f.work_items)
                    lines.append(f"      e.g. group/local {shown}  (count {f.count})")
                note = (notes or {}).get(position[id(f)])
                if note:
                    lines.append(note)
    else:
        lines.append("Findings: none.")
    lines.append("")
    if analysis.sites:
        header = (
            "line",
            "buffer",
            "space",
            "op",
            "accesses",
            "requests",
            "sectors/req",
            "bank deg",
            "access",
        )
        rows = [header]
        for s in analysis.sites:
            rows.append(
                (
                    str(s.line),
                    s.buffer,
                    s.space,
                    s.op,
                    f"{s.accesses:,}",
                    f"{s.requests:,}",
                    "-" if s.sectors_per_request is None else f"{s.sectors_per_request:.2f}",
                    "-"
                    if s.bank_conflict_degree is None
                    else f"{s.bank_conflict_degree:.2f} (worst {s.bank_conflict_worst})",
                    s.text,
                )
            )
        widths = [max(len(r[i]) for r in rows) for i in range(len(header) - 1)]
        lines.append("Memory accesses by site:")
        for r in rows:
            cells = [
                r[i].rjust(widths[i]) if i in (0, 4, 5, 6) else r[i].ljust(widths[i])
                for i in range(len(widths))
            ]
            lines.append("  " + "  ".join(cells) + "  " + r[-1])
        lines.append("")
    if analysis.loads_per_element:
        lines.append("Loads per element (global inputs):")
        for name, v in analysis.loads_per_element.items():
            lines.append(f"  {name}: min {v['min']}, max {v['max']}, mean {v['mean']:g}")
    return "\n".join(lines).rstrip() + "\n"
