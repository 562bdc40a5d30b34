"""Finding: accesses outside every buffer of their address space. In trace builds such an
access is recorded and skipped, so an indexing bug becomes this finding instead of a crash."""

from __future__ import annotations

import numpy as np

from explorer.trace.analysis.context import EXAMPLES, VERB, Context
from explorer.trace.analysis.detector import Detector
from explorer.trace.analysis.units import Unit, Units
from explorer.trace.recorded import Finding


def find(ctx: Context, units: Units) -> list[Finding]:
    """One finding per (site, buffer), naming the elements the kernel tried to reach."""
    t = ctx.trace
    merged: dict[tuple[int, int], list[Unit]] = {}
    for u in units.out_of_bounds:
        merged.setdefault((u.site, u.buffer), []).append(u)
    out = []
    for (sid, b), us in merged.items():
        s = t.sites[sid]
        info = t.buffers[b]
        count = sum(u.m for u in us)
        sample = np.concatenate([u.off[: 64 * EXAMPLES] for u in us]) // info.elem_size
        distinct = list(dict.fromkeys(int(e) for e in sample))
        shown = distinct[:EXAMPLES]
        wis = np.concatenate([u.wi[:EXAMPLES] for u in us])
        names = ", ".join(f"{info.name}[{e}]" for e in shown)
        verb = VERB.get(s.op, "accesses")
        if count == 1:
            msg = (
                f"line {s.line} {verb} {names} outside {info.name} ({info.length} elements); "
                "the access was skipped"
            )
        else:
            more = " and others" if len(distinct) > len(shown) or sample.size < count else ""
            msg = (
                f"line {s.line} {verb} {names}{more} outside {info.name} ({info.length} "
                f"elements), {count} accesses; the accesses were skipped"
            )
        out.append(
            Finding(
                kind="out-of-bounds",
                line=s.line,
                phase=None,
                buffer=info.name,
                work_items=ctx.labels(wis),
                count=count,
                message=msg,
                elements=tuple(shown),
            )
        )
    return out


DETECTOR = Detector("out-of-bounds", find, order=30)
