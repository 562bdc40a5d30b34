"""Finding: work-items of one work-group that passed different barriers (a barrier inside a
condition), which may hang the kernel or let it read stale data."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np

from explorer.trace.analysis import group_agreement
from explorer.trace.analysis.context import EXAMPLES, Context
from explorer.trace.analysis.detector import Category, Detector, several, span
from explorer.trace.analysis.units import Units
from explorer.trace.recorded import ROLE_WAIT, Finding

KIND = "barrier-divergence"


def find(ctx: Context, units: Units) -> list[Finding]:
    """Groups whose (fully recorded) work-items passed different barriers; those that
    disagree at an async copy, a wait or a barrier's run-time flags (``group_agreement``)."""
    return _passes(ctx, units) + group_agreement.find(ctx)


def _passes(ctx: Context, units: Units) -> list[Finding]:
    """Groups whose (fully recorded) work-items passed different barriers."""
    bars = units.barriers
    if not bars or all(u.count is not None for u in bars):
        return []  # every work-item ran the same sequence
    okw = np.flatnonzero(ctx.ok_wi)
    if okw.size == 0:
        return []
    g = ctx.gdense[okw]
    order = np.argsort(g, kind="stable")
    members = okw[order]
    gs = g[order]
    starts = np.flatnonzero(np.concatenate([[True], gs[1:] != gs[:-1]]))
    total = np.zeros(ctx.W, dtype=np.int64)
    bad = np.zeros(starts.size, dtype=bool)
    per_site = []
    for u in bars:
        if u.passes is None and u.nwi == ctx.W:  # each work-item passed it ``count`` times
            c = np.full(ctx.W, u.count or 0, dtype=np.int64)
        else:
            c = np.bincount(u.wi, minlength=ctx.W).astype(np.int64)
        total += c
        cm = c[members]
        diverge = np.minimum.reduceat(cm, starts) != np.maximum.reduceat(cm, starts)
        bad |= diverge
        per_site.append((u, diverge))
    if not bad.any():
        return []
    bad_groups = np.flatnonzero(bad)
    first = int(bad_groups[0])
    lo = starts[first]
    hi = starts[first + 1] if first + 1 < starts.size else members.size
    wis = members[lo:hi]
    at = sorted({u.line for u, diverge in per_site if diverge[first]})
    values, counts = np.unique(total[wis], return_counts=True)
    if values.size > 1:
        desc = ", ".join(
            f"{c} passed {v}" for v, c in zip(values.tolist(), counts.tolist(), strict=True)
        )
        desc = f"its work-items passed different numbers of barriers ({desc})"
    else:
        desc = f"its work-items all passed {int(values[0])} barriers, but not the same ones"
    examples = [int(wis[np.flatnonzero(total[wis] == v)[0]]) for v in values[:EXAMPLES]]
    if len(examples) < 2:
        examples = wis[:2].tolist()
    gid = ctx.label(int(wis[0]))[:3]
    where = ", ".join(str(x) for x in at)
    waits = {u.line for u in bars if ctx.trace.sites[u.site].role == ROLE_WAIT}
    what = "wait_group_events" if waits and waits >= set(at) else "barrier(s)"
    others = (
        f" {bad_groups.size - 1} other work-group(s) do the same." if bad_groups.size > 1 else ""
    )
    msg = (
        f"Work-group ({gid[0]}, {gid[1]}, {gid[2]}): {desc}, at the {what} on line(s) "
        f"{where}. Every work-item of a group must reach the same barriers, or the kernel "
        f"may hang or read stale data: move the barrier out of the condition so that "
        f"every work-item reaches it, splitting the conditional work into a part before it "
        f"and a part after it, each under the condition.{others}"
    )
    return [
        Finding(
            kind=KIND,
            line=at[0] if at else None,
            phase=None,
            buffer=None,
            work_items=ctx.labels(examples),
            count=int(bad_groups.size),
            message=msg,
            other_lines=tuple(at),
        )
    ]


def same_cause(f: Finding) -> Hashable:
    """Every divergence of barriers has one cause: a barrier inside a condition; each
    disagreement at a copy, a wait or run-time flags is its own."""
    return () if not f.subkind else (f.subkind, f.line)


def cause(findings: Sequence[Finding]) -> str:
    """Divergent barriers, in words."""
    if findings[0].subkind:
        return findings[0].message.split(". ")[0] + "."
    return (
        f"Work-items of one group pass different barriers on {span(findings)}{several(findings)}."
    )


def advice(findings: Sequence[Finding]) -> str:
    """What to do once about divergent barriers."""
    if findings[0].subkind:
        return ""  # the finding's message says what to do
    return (
        "Move each barrier out of the condition so that every work-item of the group "
        "reaches it: split the conditional work into a part before the barrier and a "
        "part after it, each under the condition."
    )


DETECTOR = Detector(
    KIND,
    find,
    order=40,
    category=Category.BUG,
    cause=cause,
    advice=advice,
    same_cause=same_cause,
)
