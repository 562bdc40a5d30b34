"""Finding: where this kernel's accesses part from a reference kernel's (the trace diff,
``trace --against``): one finding per work-group, at the line of its first access that
differs from the reference's at the same place of the work-item's sequence. Findings with
their first difference at the same line and of the same sort share a cause."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING

from explorer.trace.analysis.context import Context
from explorer.trace.analysis.detector import Category, Detector
from explorer.trace.analysis.units import Units
from explorer.trace.recorded import Finding

if TYPE_CHECKING:
    from explorer.trace.diff import Difference

KIND = "differs"
GROUPS = 64  # work-groups listed as findings; the diff itself holds every one


def find(ctx: Context, units: Units) -> list[Finding]:
    """A finding per differing work-group (the first ``GROUPS`` in program order)."""
    diff = ctx.diff
    if diff is None:  # no reference: the diff's modules are not imported for nothing
        return []
    from explorer.trace.diff import TraceDiff

    if not isinstance(diff, TraceDiff):
        return []
    return [_finding(d) for d in diff.first_per_group[:GROUPS]]


def _finding(d: Difference) -> Finding:
    element = d.mine.element if d.mine is not None else None
    return Finding(
        kind=KIND,
        line=d.line,
        phase=d.phase,
        buffer=d.mine.buffer if d.mine is not None else d.buffer,
        work_items=(d.group + d.local,),
        count=1,
        message=d.sentence()[0].upper() + d.sentence()[1:],
        elements=() if element is None else (element,),
        subkind=d.what,
    )


def _key(f: Finding) -> Hashable:
    return (f.line, f.subkind)


def _cause(findings: Sequence[Finding]) -> str:
    f = findings[0]
    groups = f"{len(findings)} work-groups part" if len(findings) > 1 else "A work-group parts"
    where = f"line {f.line}" if f.line else "the end of the kernel"
    what = WHAT.get(f.subkind, "an access differs")
    return f"{groups} from the reference first at {where}, phase {f.phase}: {what}."


WHAT = {
    "phase": "the same access, after another number of barriers",
    "operation": "another operation on the same element",
    "buffer": "an access to another buffer",
    "element": "an access to another element",
    "value": "another value written to the same element",
    "missing": "the reference goes on with accesses this kernel does not make",
    "extra": "an access the reference does not make",
}
ADVICE = {
    "phase": "The reference makes this access after another number of barriers: a barrier "
    "is missing (or one too many) before this line.",
    "operation": "The reference reads where this kernel writes, or the other way round.",
    "buffer": "This access addresses another buffer than the reference's does.",
    "element": "Check the index at this line: it addresses another element than the "
    "reference's (a swapped or mis-scaled index, a wrong offset).",
    "value": "The same element is written with another value: what is computed before it "
    "differs from the reference.",
    "missing": "This kernel stops before the reference does: a loop bound or a guard ends "
    "too early.",
    "extra": "This kernel goes on where the reference has stopped: a loop bound or a guard "
    "lets it make accesses the reference does not.",
}


def _advice(findings: Sequence[Finding]) -> str:
    return ADVICE.get(findings[0].subkind, "")


DETECTOR = Detector(
    KIND,
    find,
    order=25,
    category=Category.BUG,
    cause=_cause,
    advice=_advice,
    same_cause=_key,
    symptom=True,
)
