"""The key-table engine behind the race and uninitialised-read findings.

Races and uninitialised reads are found against dense per-key tables (a key is, for example,
work-group, phase and word for local memory) holding a representative writer per key, so
every check is a gather and a comparison; only racing keys are then attributed to the writing
sites they race with. Key spaces larger than ``DENSE_LIMIT`` entries are scanned in batches.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from explorer.trace.analysis.context import I32_MAX, LOADS, WRITES, Context
from explorer.trace.analysis.units import Unit
from explorer.trace.recorded import (
    DIGEST_VALUE,
    PART_VALUE,
    VALUE_WRITTEN,
    WHOLE_VALUE,
    WRITE,
    value_form,
)

DENSE_LIMIT = 1 << 23  # entries in one dense per-key table; larger key spaces go in batches
PW, AT, INIT = 1, 2, 4  # status bits of a key: plain write, atomic, written in an earlier phase
_CELL_MARK = np.int64(0x5BD1E995)  # tells a vector's cells apart where they hold its digest

# (unit, its racing records, their keys, work-item * nsites + site of a write they race with)
OnRace = Callable[[Unit, np.ndarray, np.ndarray, np.ndarray], None]
# (unit, its uninitialised reads, their keys); also (unit, its writes that would race but
# for every writer of the key storing the same value, their keys)
OnUninit = Callable[[Unit, np.ndarray, np.ndarray], None]
OnSame = OnUninit
KeyFn = Callable[[], Iterator[tuple[np.ndarray | None, np.ndarray]]]


@dataclass
class Job:
    """A unit and how to get its keys: an iterator of (records or None for all, keys)."""

    unit: Unit
    key_fn: KeyFn


def scan(
    ctx: Context,
    jobs: list[Job],
    size: int,
    actor: np.ndarray | None,
    on_race: OnRace,
    on_uninit: OnUninit | None = None,
    layout: tuple[int, int, int] | None = None,
    on_same: OnSame | None = None,
) -> tuple[np.ndarray, np.ndarray | None]:
    """Check every access of ``jobs`` against the writes to the same key.

    A race: a key written (plain write or rmw) by one actor and accessed by another, or
    atomically updated by one actor and accessed non-atomically by another. ``actor`` maps a
    work-item to its actor (its work-group, for races between groups); None means the
    work-item itself. ``on_race`` gets the unit, a racing record per key, the keys and the
    ``code`` (work-item * nsites + site) of a write it races with (see ``attribute``).

    With ``on_uninit`` (keys laid out as (groups, phases, words) in ``layout``), a read
    whose key no one wrote in an earlier phase, and which only the reader itself wrote in this
    phase, after the read, or not at all, is uninitialised. Returns the status of each key
    (``PW | AT | INIT`` bits) and which keys race (None if none).

    Plain writes that conflict only with writes of the same value (the trace recorded the
    values, and every write to the key stored the same bits there) do not race; with
    ``on_same`` they are handed to it instead."""
    wdtype = np.int32 if ctx.W < I32_MAX else np.int64
    rep: dict[bool, np.ndarray] = {}  # atomic? -> a work-item that wrote the key, -1 if none
    other: dict[bool, np.ndarray] = {}  # a writer of another actor than rep's, where one is
    writers = [j for j in jobs if j.unit.op in WRITES]
    values = ctx.trace.values
    same = _SameValue(ctx, size) if values is not None else None
    for job in writers:
        atomic = job.unit.atomic
        table = rep.get(atomic)
        if table is None:
            table = rep[atomic] = np.full(size, -1, dtype=wdtype)
        wi = job.unit.wi
        for sel, keys in job.key_fn():
            table[keys] = wi if sel is None else wi[sel]
        if same is not None and values is not None:
            same.add(job, values)
    if same is not None:
        same.settle()
    first_seq = np.full(size, I32_MAX, dtype=np.int32) if on_uninit else None
    for job in writers:
        u = job.unit
        atomic = u.atomic
        mine_all = u.wi if actor is None else actor[u.wi]
        seq = u.seq() if first_seq is not None else None
        for sel, keys in job.key_fn():
            r = rep[atomic][keys]
            mine = mine_all if sel is None else mine_all[sel]
            differ = np.flatnonzero((r if actor is None else actor[r]) != mine)
            if differ.size:
                table = other.get(atomic)
                if table is None:
                    table = other[atomic] = np.full(size, -1, dtype=wdtype)
                table[keys[differ]] = u.wi[differ if sel is None else sel[differ]]
            if first_seq is not None and seq is not None:
                np.minimum.at(first_seq, keys, seq if sel is None else seq[sel])
    status = np.zeros(size, dtype=np.int8)
    for atomic, table in rep.items():
        status |= (table >= 0).view(np.int8) * np.int8(AT if atomic else PW)
    if layout is not None and layout[1] > 1:
        nb, P, LW = layout
        s3 = status.reshape(nb, P, LW)
        earlier = np.logical_or.accumulate(s3[:, :-1, :] != 0, axis=1)
        s3[:, 1:, :] |= earlier.view(np.int8) * np.int8(INIT)
    flagged: list[tuple[Unit, np.ndarray, np.ndarray]] = []
    for job in jobs:
        u = job.unit
        plain = not u.atomic
        tables = [
            (rep[a], other.get(a)) for a in ((False, True) if plain else (False,)) if a in rep
        ]
        reads = on_uninit is not None and u.op in LOADS
        if not tables and not reads:
            continue
        bits = (PW | AT) if plain else PW
        mask = bits | (INIT if reads else 0)
        normal = INIT if reads else 0
        for sel, keys in job.key_fn():
            s = status[keys]
            look = np.flatnonzero((s & mask) != normal)
            if look.size == 0:
                continue
            sl = s[look]
            k = keys[look]
            pos = look if sel is None else sel[look]
            w = u.wi[pos]
            if tables:
                racing = np.zeros(look.size, dtype=bool)
                aw = w if actor is None else actor[w]
                for table, oth in tables:
                    r = table[k]
                    racing |= (r >= 0) & ((r if actor is None else actor[r]) != aw)
                    if oth is not None:
                        racing |= oth[k] >= 0
                racing &= (sl & bits) != 0
                if same is not None and u.op == WRITE:
                    agreed = same.agreed(k)  # every writer stored the same value: benign
                    if on_same is not None:
                        quiet = np.flatnonzero(racing & agreed)
                        if quiet.size:
                            on_same(u, pos[quiet], k[quiet])
                    racing &= ~agreed
                racing = np.flatnonzero(racing)
                if racing.size:
                    flagged.append((u, pos[racing], k[racing]))
            if reads and on_uninit is not None and first_seq is not None:
                cand = np.flatnonzero((sl & INIT) == 0)
                if cand.size:
                    kc = k[cand]
                    only_self = np.ones(cand.size, dtype=bool)  # no one else wrote it
                    for a, table in rep.items():
                        if u.atomic and a:
                            # Other atomics on a word nothing stored to: whichever came first
                            # read what the memory held before.
                            continue
                        r = table[kc]
                        only_self &= (r < 0) | (r == w[cand])
                        if a in other:
                            only_self &= other[a][kc] < 0
                    cand, kc = cand[only_self], kc[only_self]
                    seq = u.seq(pos[cand])
                    bad = np.flatnonzero(first_seq[kc] >= seq)
                    if bad.size:
                        on_uninit(u, pos[cand[bad]], kc[bad])
    if not flagged:
        return status, None
    return status, attribute(ctx, writers, flagged, size, actor, on_race)


class _SameValue:
    """Per key: the value plain writes stored there, and whether every write stored that same
    value (a key written by many work-items with one value is not a race worth reporting).
    A key is a cell of ``Context.cell_bytes`` bytes, and the j-th cell of an access holds the
    j-th cell of its value (the plane holds values as they lie in memory). Only a plain write
    whose site records the value it stored, within the plane's width, gives a key a value;
    any other writer, or a different value, makes the key "mixed"."""

    def __init__(self, ctx: Context, size: int) -> None:
        self.ctx = ctx
        self.value = np.zeros(size, dtype=np.int64)
        self.has = np.zeros(size, dtype=bool)
        self.mixed = np.zeros(size, dtype=bool)
        self.whole: list[Job] = []  # writes of vectors that agree only as a whole

    def add(self, job: Job, values: np.ndarray) -> None:
        """Take the writes of ``job``. A vector wider than the plane holds its first component
        and a digest of the others: each of its cells takes the whole recorded value (with
        the cell's place), so its writes agree only where the whole vectors do."""
        u = job.unit
        site = self.ctx.trace.sites[u.site]
        form = value_form(site.value_type, values.itemsize)
        known = u.op == WRITE and site.value == VALUE_WRITTEN and form != PART_VALUE
        vals = u.gather(values).astype(np.uint64) if known else None
        cell = self.ctx.cell_bytes(u.buffer)
        mask = np.uint64((1 << (8 * cell)) - 1)
        if form == DIGEST_VALUE:
            self.whole.append(job)
        for j, (sel, keys) in enumerate(job.key_fn()):
            if vals is None or (form == WHOLE_VALUE and (j + 1) * cell > values.itemsize):
                self.mixed[keys] = True
                continue
            whole = vals if sel is None else vals[sel]
            if form == DIGEST_VALUE:
                v = whole.view(np.int64) ^ np.int64(j + 1) * _CELL_MARK
            else:
                v = ((whole >> np.uint64(8 * cell * j)) & mask).astype(np.int64)
            held = self.value[keys]
            self.mixed[keys[self.has[keys] & (held != v)]] = True
            self.value[keys] = v
            self.has[keys] = True
            # Two writes of one batch to the same key with different values: the last one
            # stored stands; any that differ from it mark the key.
            self.mixed[keys[self.value[keys] != v]] = True

    def settle(self) -> None:
        """A vector's writes agree only as a whole: where one of a record's cells holds
        values that differ, none of its cells agrees (so a store of one float4 is a race or
        a note, never both)."""
        changed = bool(self.whole)
        while changed:
            changed = False
            for job in self.whole:
                parts = list(job.key_fn())
                ok = np.ones(job.unit.m, dtype=bool)
                for sel, keys in parts:
                    here = self.agreed(keys)
                    if sel is None:
                        ok &= here
                    else:
                        ok[sel] &= here
                for sel, keys in parts:
                    bad = keys[~(ok if sel is None else ok[sel])]
                    if bad.size and not self.mixed[bad].all():
                        self.mixed[bad] = True
                        changed = True

    def agreed(self, keys: np.ndarray) -> np.ndarray:
        """Whether every write to each key stored the same value."""
        return self.has[keys] & ~self.mixed[keys]


def attribute(
    ctx: Context,
    writers: list[Job],
    flagged: list[tuple[Unit, np.ndarray, np.ndarray]],
    size: int,
    actor: np.ndarray | None,
    on_race: OnRace,
) -> np.ndarray:
    """Name, for each racing key of each unit, every writing site it races with.

    The detection tables keep one writer per key; here each writing site gets its own
    (compact) table over just the racing keys, so a read racing with writes on lines 7 and 9
    is reported against both. Work is per distinct key, not per record: a unit's records on
    a key are summed up by one of them and, when there is one, a record of another actor,
    which is enough to tell whether some pair of different actors exists. Returns which keys
    race."""
    ns = ctx.nsites

    def act(x: np.ndarray) -> np.ndarray:
        """The actor of each work-item of ``x``."""
        return x if actor is None else actor[x]

    mark = np.zeros(size, dtype=bool)
    for _, _, k in flagged:
        mark[k] = True
    rank = np.cumsum(mark, dtype=np.int64) - 1
    nkeys = int(rank[-1]) + 1
    site_tables = []
    for job in writers:
        wu = job.unit
        entries = []
        for sel, keys in job.key_fn():
            hit = np.flatnonzero(mark[keys])
            if hit.size:
                pos = hit if sel is None else sel[hit]
                entries.append((rank[keys[hit]], wu.wi[pos]))
        if not entries:
            continue
        rep = np.full(nkeys, -1, dtype=np.int64)  # a work-item that wrote the key here
        for ck, w in entries:
            rep[ck] = w
        other = None  # one of another actor, where there is one
        for ck, w in entries:
            differ = np.flatnonzero(act(rep[ck]) != act(w))
            if differ.size:
                if other is None:
                    other = np.full(nkeys, -1, dtype=np.int64)
                other[ck[differ]] = w[differ]
        site_tables.append((wu, rep, other))
    first = np.full(nkeys, -1, dtype=np.int64)
    second = np.full(nkeys, -1, dtype=np.int64)
    for u, pos, k in flagged:
        ck = rank[k]
        first[ck] = pos  # one record per key...
        win = first[ck]
        lead = np.flatnonzero(win == pos)
        y = u.wi[pos]
        differ = np.flatnonzero(act(y) != act(u.wi[win]))
        second[ck[differ]] = pos[differ]  # ...and one by another actor, if any
        dk, dpos, dy = ck[lead], pos[lead], y[lead]
        dalt = second[dk]
        first[ck] = -1
        second[ck[differ]] = -1
        ay = act(dy)
        for wu, rep, other in site_tables:
            if wu.atomic and u.atomic:
                continue  # atomics do not race with each other
            r = rep[dk]
            has = r >= 0
            direct = has & (act(np.maximum(r, 0)) != ay)  # this writer, this record
            partner = np.where(direct, r, -1)
            example = dpos
            if other is not None:  # another writer here, against this record
                o = other[dk]
                partner = np.where((partner < 0) & (o >= 0), o, partner)
            alt = has & (partner < 0) & (dalt >= 0)  # this writer, another record
            if alt.any():
                partner = np.where(alt, r, partner)
                example = np.where(alt, dalt, dpos)
            hits = np.flatnonzero(partner >= 0)
            if hits.size:
                on_race(u, example[hits], k[lead][hits], partner[hits] * ns + wu.site)
    return mark
