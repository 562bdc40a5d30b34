"""What the cost findings share: each memory site's statistics beside the records that made
them (their bytes and a few of their work-items)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.trace.analysis.context import EXAMPLES, Context
from explorer.trace.analysis.site_stats import site_stats
from explorer.trace.analysis.units import Units
from explorer.trace.recorded import OP_NAMES, SiteStats


@dataclass(frozen=True)
class CostSite:
    """One memory site: its statistics, the bytes its accesses asked for and example
    work-items (as a finding names them)."""

    stats: SiteStats
    bytes_used: int
    work_items: tuple[tuple[int, ...], ...]


def cost_sites(ctx: Context, units: Units) -> list[CostSite]:
    """Every site with records, its statistics joined to its records' bytes."""
    cached = ctx.memo.get("cost_sites")
    if isinstance(cached, list):
        return cached
    t = ctx.trace
    used: dict[tuple[int, str, str, str], int] = {}
    who: dict[tuple[int, str, str, str], np.ndarray] = {}
    for u in units.memory:
        s = t.sites[u.site]
        b = s.buffer if s.buffer >= 0 else u.buffer
        key = (s.line, t.buffers[b].name if b >= 0 else "?", s.text, OP_NAMES[s.op])
        nbytes = int(u.size.sum()) if isinstance(u.size, np.ndarray) else u.m * int(u.size)
        used[key] = used.get(key, 0) + nbytes * u.scale
        who.setdefault(key, u.first_wi(EXAMPLES * 8))
    out = []
    for st in site_stats(ctx, units):
        key = (st.line, st.buffer, st.text, st.op)
        wis = who.get(key)
        out.append(CostSite(st, used.get(key, 0), ctx.labels(wis) if wis is not None else ()))
    ctx.memo["cost_sites"] = out
    return out
