"""Finding: writes into a ``__global`` buffer the kernel was given to read (an input). The host
expects its inputs back unchanged, and a second launch would read what the first one wrote."""

from __future__ import annotations

import numpy as np

from explorer.trace.analysis.context import EXAMPLES, VERB, WRITES, Context
from explorer.trace.analysis.detector import Category, Detector
from explorer.trace.analysis.units import Unit, Units
from explorer.trace.recorded import Finding

KIND = "write-to-input"


def find(ctx: Context, units: Units) -> list[Finding]:
    """One finding per writing site and input buffer, naming a few elements written."""
    t = ctx.trace
    merged: dict[tuple[int, int], list[Unit]] = {}
    for u in units.memory:
        if u.op in WRITES and u.m and t.buffers[u.buffer].is_input:
            merged.setdefault((u.site, u.buffer), []).append(u)
    out = []
    for (sid, b), us in merged.items():
        s = t.sites[sid]
        info = t.buffers[b]
        count = sum(u.m * u.scale for u in us)
        sample = np.concatenate([u.off[:EXAMPLES] for u in us]) // info.elem_size
        shown = list(dict.fromkeys(int(e) for e in sample))[:EXAMPLES]
        names = ", ".join(f"{info.name}[{e}]" for e in shown)
        wis = np.concatenate([u.first_wi(EXAMPLES) for u in us])
        out.append(
            Finding(
                kind=KIND,
                line=s.line,
                phase=None,
                buffer=info.name,
                work_items=ctx.labels(wis),
                count=count,
                elements=tuple(shown),
                message=(
                    f"line {s.line} {VERB[s.op]} {info.name}, an input the kernel was given to "
                    f"read (e.g. {names}; {count} accesses): the host expects its inputs "
                    "unchanged, and the next launch reads what this one wrote. Write the "
                    "result to the output, or to local or private memory."
                ),
            )
        )
    return out


DETECTOR = Detector(KIND, find, order=45, category=Category.BUG)
