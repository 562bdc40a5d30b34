"""One pass over local memory that both the race and the uninitialised-read detectors use.

Keys are (work-group, epoch, cell), a cell being a word or, in a buffer accessed in smaller
pieces, the piece (``Context.cell_bytes``): a barrier with CLK_LOCAL_MEM_FENCE starts a new epoch of
local memory, a barrier without it does not (see ``memory_model``).
The pass runs once per analysis and keeps what it found, batch by batch (keys of different
batches may coincide), for each detector to read.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from explorer.trace.analysis import keyscan, memory_model
from explorer.trace.analysis.context import I32_MAX, Context
from explorer.trace.analysis.units import Unit, Units
from explorer.trace.recorded import LOCAL

_MEMO_KEY = "local-memory"


@dataclass
class Batch:
    """What one batch of work-groups gave: racing, uninitialised and same-value records (as the
    callbacks of ``keyscan.scan`` received them) over a key table of ``size`` entries."""

    size: int
    races: list[tuple[Unit, np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=list)
    uninitialised: list[tuple[Unit, np.ndarray, np.ndarray]] = field(default_factory=list)
    same_value: list[tuple[Unit, np.ndarray, np.ndarray]] = field(default_factory=list)

    def add_race(self, u: Unit, pos: np.ndarray, keys: np.ndarray, partner: np.ndarray) -> None:
        """Keep racing records (``keyscan.OnRace``)."""
        self.races.append((u, pos, keys, partner))

    def add_uninitialised(self, u: Unit, pos: np.ndarray, keys: np.ndarray) -> None:
        """Keep uninitialised reads (``keyscan.OnUninit``)."""
        self.uninitialised.append((u, pos, keys))

    def add_same_value(self, u: Unit, pos: np.ndarray, keys: np.ndarray) -> None:
        """Keep writes that race only with writes of the same value (``keyscan.OnSame``)."""
        self.same_value.append((u, pos, keys))


@dataclass
class LocalScan:
    """Every batch of the local-memory pass, and how many groups each record stands for."""

    scale: int
    batches: list[Batch] = field(default_factory=list)
    # Where each buffer's keys start in a group's phase row of LW keys: a key's cell in its
    # buffer is ``key % LW - bases[buffer]``.
    bases: dict[int, int] = field(default_factory=dict)
    LW: int = 1


def scan(ctx: Context, units: Units) -> LocalScan:
    """The local-memory pass over ``units`` (run once per analysis, then kept)."""
    kept = ctx.memo.get(_MEMO_KEY)
    if isinstance(kept, LocalScan):
        return kept
    result = _scan(ctx, units)
    ctx.memo[_MEMO_KEY] = result
    return result


def _scan(ctx: Context, units: Units) -> LocalScan:
    result = LocalScan(ctx.local_scale)
    # A __local argument smaller than one element of its type (4 bytes for a struct of 12)
    # has no cell to key: its accesses are out of bounds, which their own pass says.
    lunits = [
        u
        for u in units.memory
        if ctx.space(u.buffer) == LOCAL and u.m and ctx.cell_count(u.buffer) > 0
    ]
    if not lunits:
        return result
    bases: dict[int, int] = {}
    LW = 0
    for b in sorted({u.buffer for u in lunits}):
        bases[b] = LW
        LW += ctx.cell_count(b)
    result.bases, result.LW = bases, LW
    table = memory_model.epochs(ctx, units).table(LOCAL)
    P = max(int(u.epoch(LOCAL, table).max()) for u in lunits) + 1
    if ctx.phase_row is None:
        row = None
    elif table is None:
        row = ctx.phase_row
    else:
        row = table[0][np.minimum(ctx.phase_row, table.shape[1] - 1)]
    G = ctx.ngroups if ctx.local_scale == 1 else 1  # else the first group stands for all
    step = max(1, keyscan.DENSE_LIMIT // max(1, P * LW))
    for g0 in range(0, G, step):
        g1 = min(G, g0 + step)
        size = (g1 - g0) * P * LW
        dtype = np.int32 if size < I32_MAX else np.int64
        jobs = []
        group = ctx.gdense - g0 if ctx.local_scale == 1 else np.zeros(ctx.W, np.int64)
        for u in lunits:
            sub = u if (g0, g1) == (0, G) else _groups_subset(ctx, u, g0, g1)
            if sub.m:
                start = (group * (P * LW) + bases[u.buffer]).astype(dtype)
                keys = partial(_local_keys, sub, start, LW, table, row)
                jobs.append(keyscan.Job(sub, keys))
        batch = Batch(size)
        layout = (g1 - g0, P, LW)
        keyscan.scan(
            ctx,
            jobs,
            size,
            None,
            batch.add_race,
            partial(but_padding, ctx, bases, LW, batch.add_uninitialised),
            layout,
            batch.add_same_value,
        )
        result.batches.append(batch)
    return result


def but_padding(
    ctx: Context,
    bases: dict[int, int],
    LW: int,
    keep: keyscan.OnUninit,
    u: Unit,
    pos: np.ndarray,
    keys: np.ndarray,
) -> None:
    """Hand ``keep`` the uninitialised reads of ``u`` but those of the padding of a struct
    (a struct read whole reads the bytes between its members, which nothing ever writes) and
    those of the members a struct copied whole into a variable holds that the kernel never
    reads from it (``P q = loc[i];`` then only ``q.x``: ``q.pad``'s bytes are never used)."""
    info = ctx.trace.buffers[u.buffer]
    unused = ctx.trace.sites[u.site].unused
    if info.padding or unused:
        cell = ctx.cell_bytes(u.buffer)
        at = (keys % LW - bases[u.buffer]) * cell  # the byte of the buffer each key starts
        skipped = np.zeros(at.shape, dtype=bool)
        first = at % max(1, info.elem_size)
        for start, end in info.padding:
            skipped |= (first >= start) & (first + cell <= end)
        if unused:
            within = at - np.asarray(u.off)[pos]  # from the first byte of the access
            for start, end in unused:
                skipped |= (within >= start) & (within + cell <= end)
        pos, keys = pos[~skipped], keys[~skipped]
        if pos.size == 0:
            return
    keep(u, pos, keys)


def _local_keys(
    u: Unit,
    start: np.ndarray,
    LW: int,
    table: np.ndarray | None,
    row: np.ndarray | None,
) -> Iterator[tuple[np.ndarray | None, np.ndarray]]:
    """Local keys: ((group - g0) * epochs + epoch) * words + the word's place, where
    ``start`` holds ((group - g0) * epochs * words + the buffer's first word) per work-item
    and ``row`` the epoch at each record of a work-item when all ran the same sequence."""
    if u.cols is not None and row is not None:
        key = u.per_wi(start, row[u.cols].astype(start.dtype) * LW)
    else:
        key = u.per_wi(start)
        key += u.epoch(LOCAL, table).astype(start.dtype) * LW
    for sel, w in u.key_cells():
        yield sel, (key + w if sel is None else key[sel] + w)


def _groups_subset(ctx: Context, u: Unit, g0: int, g1: int) -> Unit:
    """The records of ``u`` from work-groups g0..g1-1 (dense ids)."""
    if ctx.group_sorted:
        wlo, whi = np.searchsorted(ctx.gdense, [g0, g1])
        a, b = np.searchsorted(u.wi, [wlo, whi])
        return u.subset(slice(int(a), int(b)))
    gd = ctx.gdense[u.wi]
    return u.subset(np.flatnonzero((gd >= g0) & (gd < g1)))
