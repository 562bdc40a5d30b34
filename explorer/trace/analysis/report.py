"""The analysis as a person reads it: findings grouped by root cause, each group with one
piece of advice, then plain text (the JSON form is :meth:`Analysis.to_json`, with
:func:`groups_json` beside it).

Several findings often have one cause: a missing barrier makes races between every pair of
lines of a reduction, an index past the end of a buffer is out of bounds at its read and at
its write. A person fixes the cause once, so the cause is the heading and its advice is
written to be right when followed literally: a barrier is always placed where every
work-item of the group reaches it, never inside a branch that only some take.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from explorer.trace.analysis.result import Analysis
from explorer.trace.recorded import Finding, Trace

_LINE = re.compile(r"\bline (\d+)")
_BARRIER_RULE = (
    "Place every barrier where all work-items of the group reach it: if the lines sit inside "
    "a condition that only some work-items take (such as if (lid < n)), close the condition "
    "before the barrier and reopen it after; a barrier inside such a branch is a bug of its "
    "own (barrier divergence)."
)


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
        found: set[int] = set()
        for f in self.findings:
            if f.line is not None:
                found.add(f.line)
            found.update(int(n) for n in _LINE.findall(f.message))
        return tuple(sorted(found))

    def to_json(self, indices: list[int]) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "cause": self.cause,
            "advice": self.advice,
            "lines": list(self.lines),
            "findings": indices,
        }


def _cause_key(f: Finding, bounds_buffers: set[str | None]) -> tuple[Any, ...]:
    """Findings with the same key share a root cause."""
    if f.kind == "race":
        if "between work-groups" in f.message:
            return ("race-groups", f.buffer)
        if "does not name" in f.message:
            return ("race-fence", f.buffer)
        return ("race", f.buffer, f.phase)
    if f.kind == "out-of-bounds" or (f.kind == "coverage" and f.buffer in bounds_buffers):
        return ("bounds", f.buffer)
    if f.kind == "barrier-divergence":
        return ("divergence",)
    if f.kind == "uninitialized":
        return ("uninitialized", f.buffer)
    return (f.kind, f.buffer, f.line, f.message)


def _span(lines: tuple[int, ...]) -> str:
    if not lines:
        return "the kernel"
    if len(lines) == 1:
        return f"line {lines[0]}"
    if lines == tuple(range(lines[0], lines[-1] + 1)):
        return f"lines {lines[0]}–{lines[-1]}"
    return "lines " + ", ".join(map(str, lines))


def _describe(key: tuple[Any, ...], findings: tuple[Finding, ...]) -> FindingGroup:
    first = findings[0]
    probe = FindingGroup(first.kind, "", "", findings)
    where, buf, n = _span(probe.lines), first.buffer or "", len(findings)
    several = f" ({n} findings)" if n > 1 else ""
    cause, advice = first.message, ""
    if key[0] == "race":
        local = "CLK_GLOBAL_MEM_FENCE" not in first.message
        fence = "CLK_LOCAL_MEM_FENCE" if local else "CLK_GLOBAL_MEM_FENCE"
        cause = (
            f"No barrier orders the accesses to {buf} on {where} (phase {first.phase}): "
            f"work-items of one group read and write the same elements in one phase{several}."
        )
        advice = (
            f"Order them with barrier({fence}). Where one statement both reads and writes "
            f"{buf} (p[0] += p[s]), split it: read into a private variable, barrier, write "
            f"back, barrier before the next step reads. {_BARRIER_RULE}"
        )
    elif key[0] == "race-fence":
        cause = f"A barrier between the accesses to {buf} on {where} lacks a fence flag{several}."
        advice = (
            "Add the missing flag (named in each finding) to that barrier's flags; the barrier "
            "stays where it is."
        )
    elif key[0] == "race-groups":
        cause = f"Work-groups access the same elements of {buf} on {where}{several}."
        advice = (
            "Work-groups cannot wait for each other within one launch: give each element to "
            "one work-group, use atomics, or split the kernel in two."
        )
    elif key[0] == "bounds":
        cause = f"Indices outside {buf} on {where}{several}."
        advice = (
            "Make the global size and the index agree with the buffer's size, or guard the "
            "access itself with a bounds check (if (i < n) ...). Keep every barrier outside "
            "such a guard: all work-items of the group must reach it."
        )
    elif key[0] == "divergence":
        cause = f"Work-items of one group pass different barriers on {where}{several}."
        advice = (
            "Move each barrier out of the condition so that every work-item of the group "
            "reaches it: split the conditional work into a part before the barrier and a "
            "part after it, each under the condition."
        )
    elif key[0] == "uninitialized":
        cause = f"{buf} is read before anything wrote it, on {where}{several}."
        advice = (
            "Write every element before any work-item reads it; in local memory, put a "
            f"barrier(CLK_LOCAL_MEM_FENCE) between the writes and the reads. {_BARRIER_RULE}"
        )
    return FindingGroup(first.kind, cause, advice, findings)


def group_findings(findings: tuple[Finding, ...] | list[Finding]) -> list[FindingGroup]:
    """The findings grouped by root cause, groups in the order of their first finding."""
    bounds_buffers = {f.buffer for f in findings if f.kind == "out-of-bounds"}
    grouped: dict[tuple[Any, ...], list[Finding]] = {}
    for f in findings:
        grouped.setdefault(_cause_key(f, bounds_buffers), []).append(f)
    return [_describe(key, tuple(members)) for key, members in grouped.items()]


def groups_json(findings: tuple[Finding, ...] | list[Finding]) -> list[dict[str, Any]]:
    """Each group as JSON, its findings as indices into ``findings``."""
    position = {id(f): i for i, f in enumerate(findings)}
    return [g.to_json([position[id(f)] for f in g.findings]) for g in group_findings(findings)]


def format_report(trace: Trace, analysis: Analysis) -> str:
    """A plain-text report: summary, findings, per-site table, loads per element."""
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
