"""Finding: work-items that tried to record more than their region of the trace buffer holds,
so the trace is incomplete after that point."""

from __future__ import annotations

from explorer.trace.analysis.context import Context
from explorer.trace.analysis.detector import Category, Detector
from explorer.trace.analysis.units import Units
from explorer.trace.recorded import Finding

KIND = "overflow"


def find(ctx: Context, units: Units) -> list[Finding]:
    """One finding naming the overflowed work-items and the capacity that would have held them."""
    over = ctx.overflowed
    if over.size == 0:
        return []
    t = ctx.trace
    most = int(t.wi_count[over].max())
    return [
        Finding(
            kind=KIND,
            line=None,
            phase=None,
            buffer=None,
            work_items=ctx.labels(over),
            count=int(over.size),
            message=(
                f"{over.size} work-item(s) tried to record more than the {t.capacity} records "
                f"each can keep (the most tried {most}): the trace is incomplete after that "
                f"point, so accesses, and findings about them, are missing. Raise the trace "
                f"capacity to at least {most} records per work-item, or trace fewer "
                f"work-groups."
            ),
        )
    ]


DETECTOR = Detector(KIND, find, order=10, category=Category.TRACE)
