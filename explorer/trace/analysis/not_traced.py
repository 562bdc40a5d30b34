"""Finding: source lines the instrumentation could not record (the trace is incomplete)."""

from __future__ import annotations

from explorer.trace.analysis.context import Context
from explorer.trace.analysis.detector import Category, Detector
from explorer.trace.analysis.units import Units
from explorer.trace.recorded import Finding

KIND = "not-traced"


def find(ctx: Context, units: Units) -> list[Finding]:
    """One finding per line the instrumentation reported, with its reason (line 0: what
    the whole trace could not tell)."""
    return [
        Finding(
            kind=KIND,
            line=nt.line or None,
            phase=None,
            buffer=None,
            work_items=(),
            count=1,
            message=(
                f"line {nt.line} was not traced: {nt.reason}"
                if nt.line
                else f"the trace is incomplete: {nt.reason}"
            ),
        )
        for nt in ctx.trace.not_traced
    ]


DETECTOR = Detector(KIND, find, order=20, category=Category.TRACE)
