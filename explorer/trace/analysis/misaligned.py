"""Finding: accesses through a pointer not aligned for its type (``*(float4*)&t[i + 1]``).
OpenCL C requires a vector or struct to start on a boundary of its alignment; a device may
fault on a misaligned one (PoCL's unoptimised build does: an aligned vector load) or read
other bytes than those named. In trace builds such an access is recorded and skipped, as
one out of bounds is, so it becomes this finding instead of a crash."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np

from explorer.trace.analysis.context import EXAMPLES, VERB, Context
from explorer.trace.analysis.detector import Category, Detector, several, span
from explorer.trace.analysis.units import Units, by_site_and_buffer, reaches_beyond
from explorer.trace.recorded import READ, WRITE, Finding

KIND = "misaligned"


def find(ctx: Context, units: Units) -> list[Finding]:
    """One finding per (site, buffer), naming the byte offsets the kernel tried."""
    t = ctx.trace
    out = []
    for (sid, b), us in by_site_and_buffer(units.misaligned).items():
        s = t.sites[sid]
        info = t.buffers[b]
        count = sum(u.m for u in us)
        size = int(np.max(np.concatenate([np.atleast_1d(u.size) for u in us])))
        sample = [int(o) for u in us for o in u.off[: 64 * EXAMPLES]]
        offsets = list(dict.fromkeys(sample))
        shown = offsets[:EXAMPLES]
        others = len(offsets) > len(shown) or (len(sample) < count and reaches_beyond(us, shown))
        more = " and others" if others else ""
        where = ", ".join(f"{o} ({info.name}[{o // info.elem_size}])" for o in shown)
        verb = VERB.get(s.op, "accesses")
        whole = size & (size - 1) == 0
        rule = (
            f"a {size}-byte value must start on a {size}-byte boundary"
            if whole
            else f"the {size}-byte type must start on a boundary of its alignment"
        )
        skipped = "the access was skipped" if count == 1 else f"{count} accesses were skipped"
        wide = size // info.elem_size if info.elem_size and size % info.elem_size == 0 else 0
        calls = {READ: f"vload{wide}", WRITE: f"vstore{wide}"}.get(
            s.op, f"vload{wide} and vstore{wide}"
        )
        remedy = (
            f"keep the index a multiple of {wide} elements, or use {calls}, which needs only "
            f"the alignment of {info.name}'s elements"
            if whole and wide in (2, 3, 4, 8, 16)
            else "keep the pointer aligned for the type it is accessed as"
        )
        msg = (
            f"line {s.line} {verb} {info.name} as a {size}-byte value at byte offset(s) "
            f"{where}{more}, not aligned for it: {rule}; {skipped} (a device may fault on "
            f"it, or {verb.removesuffix('s')} other bytes than those named). To fix: {remedy}"
        )
        wis = np.concatenate([u.wi[:EXAMPLES] for u in us])
        out.append(
            Finding(
                kind=KIND,
                line=s.line,
                phase=None,
                buffer=info.name,
                work_items=ctx.labels(wis),
                count=count,
                message=msg,
                elements=tuple(o // info.elem_size for o in shown),
                remedy=remedy,
            )
        )
    return out


def same_cause(f: Finding) -> Hashable:
    """Each line's misaligned pointer its own cause."""
    return (f.buffer, f.line)


def cause(findings: Sequence[Finding]) -> str:
    """A pointer not aligned for its type, in words."""
    buf = findings[0].buffer or ""
    return f"A pointer into {buf} not aligned for its type on {span(findings)}{several(findings)}."


def advice(findings: Sequence[Finding]) -> str:
    """What to do once about misaligned accesses."""
    return findings[0].remedy[:1].upper() + findings[0].remedy[1:] + "."


DETECTOR = Detector(
    KIND,
    find,
    order=31,
    category=Category.BUG,
    cause=cause,
    advice=advice,
    same_cause=same_cause,
)
