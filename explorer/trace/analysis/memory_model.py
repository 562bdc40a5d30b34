"""The OpenCL 1.2 memory model as the race and uninitialised-read analyses apply it: a barrier
orders only the address spaces its fence flags name.

A work-item's phase counts every barrier it passed; its *epoch* in an address space counts only
the barriers that order that space. Two accesses of one work-group in different epochs are
ordered; in the same epoch (even in different phases, across a barrier that does not fence the
space) they are not. Keying the analyses by epoch instead of phase applies the rule with no
per-record loop. A barrier that some work-items of a group passed with the fence and others
without counts as fencing (barrier divergence is its own finding).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.trace.analysis.context import Context
from explorer.trace.analysis.units import Units
from explorer.trace.recorded import FENCE_GLOBAL, FENCE_LOCAL, GLOBAL, LOCAL

_MEMO_KEY = "memory-model"
FENCE_OF_SPACE = {LOCAL: FENCE_LOCAL, GLOBAL: FENCE_GLOBAL}
FLAG_NAMES = {FENCE_LOCAL: "CLK_LOCAL_MEM_FENCE", FENCE_GLOBAL: "CLK_GLOBAL_MEM_FENCE"}


@dataclass(frozen=True)
class Epochs:
    """Per fence bit: ``tables[bit][group, phase]`` is the epoch of that phase in that work-group
    (dense group ids), or None when every barrier passed orders the space (epoch = phase).
    ``unfenced[bit]`` lists the lines of barriers that do not order it."""

    tables: dict[int, np.ndarray | None]
    unfenced: dict[int, tuple[int, ...]]

    def table(self, space: int) -> np.ndarray | None:
        """The epoch table of an address space (LOCAL or GLOBAL)."""
        return self.tables[FENCE_OF_SPACE[space]]


def epochs(ctx: Context, units: Units) -> Epochs:
    """The epoch tables of ``ctx.trace`` (computed once per analysis, then kept)."""
    kept = ctx.memo.get(_MEMO_KEY)
    if isinstance(kept, Epochs):
        return kept
    result = _epochs(ctx, units)
    ctx.memo[_MEMO_KEY] = result
    return result


def _epochs(ctx: Context, units: Units) -> Epochs:
    sites = ctx.trace.sites
    unfenced = {
        bit: tuple(sorted({b.line for b in units.barriers if not sites[b.site].fences & bit}))
        for bit in (FENCE_LOCAL, FENCE_GLOBAL)
    }
    tables: dict[int, np.ndarray | None] = dict.fromkeys(unfenced)
    bars = [b for b in units.barriers if b.phase is not None and b.phase.size]
    if not any(unfenced.values()) or not bars:
        return Epochs(tables, unfenced)
    P = max(int(b.phase.max()) for b in bars if b.phase is not None) + 2
    G = ctx.ngroups
    known = np.zeros(G * P, dtype=bool)  # some work-item of the group passed that barrier
    orders = {bit: np.zeros(G * P, dtype=bool) for bit in unfenced}
    for b in bars:
        assert b.phase is not None
        if b.phase.size != b.size:  # every work-item, so every group, at these phases
            flat = (np.arange(G, dtype=np.int64)[:, None] * P + b.phase[None, :]).reshape(-1)
        else:
            flat = ctx.gdense[b.wi] * P + b.phase
        known[flat] = True
        for bit, table in orders.items():
            if sites[b.site].fences & bit:
                table[flat] = True
    for bit, table in orders.items():
        if not unfenced[bit]:
            continue
        # A transition with no barrier recorded (the group never got there, or its records
        # were lost) is taken as ordering, as before the memory model was applied.
        step = (table | ~known).reshape(G, P)
        epoch = np.zeros((G, P), dtype=np.int64)
        np.cumsum(step[:, :-1], axis=1, out=epoch[:, 1:])
        tables[bit] = epoch
    return Epochs(tables, unfenced)
