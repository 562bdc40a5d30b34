"""What a finding kind's module provides: one record (``DETECTOR``) with everything the
analysis, the report and the findings view know of the kind. Nothing else names a kind to
decide what to say about it or how to show it."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from enum import Enum

from explorer.trace.analysis.context import Context
from explorer.trace.analysis.units import Units
from explorer.trace.recorded import Finding


class Category(Enum):
    """What a finding says about the kernel; the findings view gives each its own colour."""

    BUG = "bug"  # the kernel is wrong: a race, an index outside a buffer
    COST = "cost"  # right but slow; "Measure the fix" times it beside its counterpart
    NOTE = "note"  # neither: worth knowing (writes that agree, so do not race)
    TRACE = "trace"  # about the trace itself: what it could not record


def lines_of(findings: Sequence[Finding]) -> tuple[int, ...]:
    """Every source line the findings name, in order."""
    found: set[int] = set()
    for f in findings:
        if f.line is not None:
            found.add(f.line)
        found.update(f.other_lines)
    return tuple(sorted(found))


def span(findings: Sequence[Finding]) -> str:
    """The findings' lines as a cause names them: "line 4", "lines 20–22", "lines 21, 25"."""
    lines = lines_of(findings)
    if not lines:
        return "the kernel"
    if len(lines) == 1:
        return f"line {lines[0]}"
    if lines == tuple(range(lines[0], lines[-1] + 1)):
        return f"lines {lines[0]}–{lines[-1]}"
    return "lines " + ", ".join(map(str, lines))


def several(findings: Sequence[Finding]) -> str:
    """ " (3 findings)" after a cause that stands for several, else nothing."""
    return f" ({len(findings)} findings)" if len(findings) > 1 else ""


def first_message(findings: Sequence[Finding]) -> str:
    """The cause of a kind whose findings each stand alone: the finding's own message."""
    return findings[0].message


def no_advice(findings: Sequence[Finding]) -> str:
    """Advice of a kind whose message already says what to do."""
    return ""


def alone(finding: Finding) -> Hashable:
    """Each finding its own root cause (unless two say exactly the same)."""
    return (finding.buffer, finding.line, finding.message)


@dataclass(frozen=True)
class Detector:
    """One finding kind.

    ``find`` returns every finding of ``kind`` in the grouped records; ``order`` places them in
    the report (what the trace missed first, then the kernel's bugs, costs last).
    ``same_cause`` gives findings of the kind that share a root cause the same key; the
    report then writes one ``cause`` and one piece of ``advice`` for them (both functions of
    those findings). ``explained_by`` names another kind whose finding on the same buffer is
    the root cause of this kind's (indices outside a buffer explain its elements never
    written): such findings join that finding's cause. A ``symptom`` kind's findings show
    where a result went wrong (a difference from a reference's trace), not what made it so:
    they do not explain a wrong result (:func:`causes_of_a_wrong_result`).
    """

    kind: str
    find: Callable[[Context, Units], list[Finding]]
    order: int
    category: Category
    cause: Callable[[Sequence[Finding]], str] = first_message
    advice: Callable[[Sequence[Finding]], str] = no_advice
    same_cause: Callable[[Finding], Hashable] = alone
    explained_by: str = ""
    symptom: bool = False
