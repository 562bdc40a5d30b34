"""Note (not a bug): work-items that write one element with nothing ordering them, every one
storing the same value, such as every work-item setting a flag to 1. Not a race: whichever
write lands last, memory holds that value. Told apart from a race only when the trace
recorded values (``trace --values``); without them such writes are reported as a race.
A read of the element among those writes still races with them (``races``). A vector's
writes agree only where the whole vectors do, and a line whose writes race with other writes
somewhere gets that race alone, never a note beside it."""

from __future__ import annotations

from explorer.trace.analysis import races
from explorer.trace.analysis.context import EXAMPLES, WRITES, Context
from explorer.trace.analysis.detector import Category, Detector
from explorer.trace.analysis.units import Units
from explorer.trace.recorded import Finding

KIND = "same-value-writes"


def find(ctx: Context, units: Units) -> list[Finding]:
    """One note per (buffer, writing line), from the race passes."""
    if ctx.trace.values is None:
        return []
    scanned = races.scan(ctx, units)
    # A line whose writes race with other writes gets the race alone: never a race and a
    # note "not a race" for the same writes.
    racing = {
        (b, line)
        for scope in (scanned.local, scanned.grid, scanned.group)
        for (b, wline, oline, _), e in scope.found.items()
        if e.other_op in WRITES
        for line in (wline, oline)
    }
    out = []
    for (b, line), e in sorted(scanned.same.found.items(), key=lambda i: (i[0][1], i[0][0])):
        if (b, line) in racing:
            continue
        name = ctx.trace.buffers[b].name
        shown = tuple(dict.fromkeys(e.elements))[:EXAMPLES]
        where = ", ".join(f"{name}[{i}]" for i in shown)
        out.append(
            Finding(
                kind=KIND,
                line=line,
                phase=None,
                buffer=name,
                work_items=ctx.labels(e.wis),
                count=e.count,
                message=(
                    f"Note, not a race: line {line} writes {where} from several work-items "
                    "with nothing ordering them, but every one stored the same value, so "
                    "memory holds that value whichever lands last. It becomes a race the day "
                    "the values can differ."
                ),
                elements=shown,
            )
        )
    return out


DETECTOR = Detector(KIND, find, order=55, category=Category.NOTE)
