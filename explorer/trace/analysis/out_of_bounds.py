"""Finding: accesses outside every buffer of their address space. In trace builds such an
access is recorded and skipped, so an indexing bug becomes this finding instead of a crash."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np

from explorer.trace.analysis.context import EXAMPLES, VERB, Context
from explorer.trace.analysis.detector import Category, Detector, several, span
from explorer.trace.analysis.units import Unit, Units
from explorer.trace.recorded import Finding

KIND = "out-of-bounds"


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
                kind=KIND,
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


def same_cause(f: Finding) -> Hashable:
    """One index past a buffer's end is out of bounds at its read and at its write."""
    return f.buffer


def cause(findings: Sequence[Finding]) -> str:
    """Indices outside one buffer, in words."""
    buf = findings[0].buffer or ""
    return f"Indices outside {buf} on {span(findings)}{several(findings)}."


def advice(findings: Sequence[Finding]) -> str:
    """What to do once about indices outside a buffer."""
    return (
        "Make the global size and the index agree with the buffer's size, or guard the "
        "access itself with a bounds check (if (i < n) ...). Keep every barrier outside "
        "such a guard: all work-items of the group must reach it."
    )


DETECTOR = Detector(
    KIND,
    find,
    order=30,
    category=Category.BUG,
    cause=cause,
    advice=advice,
    same_cause=same_cause,
)
