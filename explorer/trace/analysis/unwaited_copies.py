"""Finding: an async copy (``async_work_group_copy``, ``async_work_group_strided_copy``) that
a work-group never waits for. A copy is in flight from its call until a ``wait_group_events``
that names its event; one that no wait ends before the kernel does may not have moved its
elements when the group finishes (Oclgrind: "work-group finished without waiting for
events"). Where something reads the copy's destination meanwhile, that is a race through the
copy (``races``), whose message already says nothing waits for it: no second finding here.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from explorer.trace.analysis import async_copies
from explorer.trace.analysis.context import Context
from explorer.trace.analysis.detector import Category, Detector, several, span
from explorer.trace.analysis.units import Units
from explorer.trace.recorded import Finding

KIND = "unwaited-copy"


def find(ctx: Context, units: Units) -> list[Finding]:
    """One finding per copy (line and destination) that some work-group never waited for."""
    t = ctx.trace
    raced = {
        f.other_lines[0]
        for f in async_copies.in_flight(ctx)
        if f.other_lines and "nothing waits for it" in f.message
    }
    out = []
    for c in async_copies.unwaited(ctx):
        if c.line in raced:
            continue
        dst = t.buffers[c.destination].name
        src = f" from {t.buffers[c.source].name}[]" if c.source >= 0 else ""
        groups = f"{c.groups} work-group" + ("s" if c.groups != 1 else "")
        out.append(
            Finding(
                kind=KIND,
                line=c.line,
                phase=None,
                buffer=dst,
                work_items=ctx.labels(c.wis),
                count=c.groups,
                message=(
                    f"The async copy on line {c.line} (into {dst}[]{src}) is never waited "
                    f"for: in {groups}, no wait_group_events names its event before the "
                    f"kernel ends, so the copy may not have moved its elements when the group "
                    f"finishes. Call wait_group_events with the copy's event, in every "
                    f"work-item of the group, before anything reads {dst}[] and before the "
                    "kernel ends."
                ),
            )
        )
    return out


def same_cause(f: Finding) -> Hashable:
    """Every copy nothing waits for: one missing habit, one piece of advice."""
    return KIND


def cause(findings: Sequence[Finding]) -> str:
    """Copies no wait ends, in words."""
    if len(findings) == 1:
        return f"The async copy on {span(findings)} is never waited for."
    return f"Async copies on {span(findings)} are never waited for{several(findings)}."


def advice(findings: Sequence[Finding]) -> str:
    """What to do once about copies no wait ends."""
    return (
        "Keep the event each async copy returns and pass it to wait_group_events, reached by "
        "every work-item of the group, before the copy's destination is read and before the "
        "kernel ends; a barrier does not wait for a copy."
    )


DETECTOR = Detector(
    KIND,
    find,
    order=52,
    category=Category.BUG,
    cause=cause,
    advice=advice,
    same_cause=same_cause,
)
