"""Finding: work-items that tried to record more than their region of the trace buffer holds,
so the trace is incomplete after that point."""

from __future__ import annotations

import numpy as np

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
    rooms = t.extra.get("capacity_per_wi")
    worst = int(over[np.argmax(t.wi_count[over])])
    most = int(t.wi_count[worst])
    room = int(rooms[worst]) if rooms is not None else t.capacity
    return [
        Finding(
            kind=KIND,
            line=None,
            phase=None,
            buffer=None,
            work_items=ctx.labels(over),
            count=int(over.size),
            message=(
                f"{over.size} work-item(s) made more records when recorded than when counted "
                f"(the most {most}, where its count gave it room for {room}), even recorded "
                "anew: the kernel's paths differ from one launch to the next (atomics "
                "deciding who does what, a compare-and-swap loop that retries as others "
                "win). The trace is incomplete after that point, so accesses, and findings "
                "about them, are missing: trace fewer work-groups, or with more memory "
                "(--groups, --budget-mb), to give each work-item more room."
            ),
        )
    ]


DETECTOR = Detector(KIND, find, order=10, category=Category.TRACE)
