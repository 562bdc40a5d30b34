"""Finding: races. Within a work-group and phase, an address written by one work-item and read
or written by another (local and global memory); across work-groups, on global memory. A
barrier orders only the address spaces its fence flags name (OpenCL 1.2 memory model), and
atomics do not race with each other.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import partial

import numpy as np

from explorer.trace.analysis import async_copies, fences, keyscan, local_memory, memory_model
from explorer.trace.analysis.context import (
    BARRIER_RULE,
    EXAMPLES,
    VERB,
    WRITES,
    Context,
    ordered,
)
from explorer.trace.analysis.detector import Category, Detector, several, span
from explorer.trace.analysis.units import Unit, Units
from explorer.trace.recorded import ATOMIC, GLOBAL, LOCAL, READ, RMW, WRITE, Finding

KIND = "race"
# What leaves a race's accesses unordered (``Finding.subkind``); each has its own advice.
BETWEEN_GROUPS = "between-groups"  # work-groups never wait for each other within a launch
# …where one side is a plain read and the other an atomic (a compare-and-swap loop's first
# guess, a flag polled without an atomic): the advice is to read atomically, not "use atomics"
READ_BESIDE_ATOMIC = "read-beside-atomic"
UNFENCED = "unfenced-barrier"  # a barrier stands between them, without the space's fence flag
FENCE_NOT_BARRIER = "fence-not-barrier"  # only a mem_fence stands between them
NO_LOCAL_BARRIER = "no-local-barrier"  # nothing between them: barrier(CLK_LOCAL_MEM_FENCE)
NO_GLOBAL_BARRIER = "no-global-barrier"  # nothing between them: barrier(CLK_GLOBAL_MEM_FENCE)
# …where work-items of one group update the same elements on one line (bins[v]++): no barrier
# orders one statement's read-modify-writes, an atomic does
SAME_UPDATES = "same-updates"
SAME_WRITES = "same-writes"  # …write the same elements on one line (not all one value)
_FENCE = {NO_LOCAL_BARRIER: "CLK_LOCAL_MEM_FENCE", NO_GLOBAL_BARRIER: "CLK_GLOBAL_MEM_FENCE"}

_Key = tuple[int, int, int, int | None]  # buffer, writing line, other line, phase


@dataclass
class _Pair:
    """What is known of one (writing line, other line) pair on a buffer in one phase."""

    write_op: int
    other_op: int
    write_site: int
    other_site: int
    count: int = 0
    wis: list[int] = field(default_factory=list)
    elements: list[int] = field(default_factory=list)
    samples: list[fences.Sample] = field(default_factory=list)  # racing pairs, a few


_SAMPLES = 16  # racing pairs per finding looked at for a fence between them


class Races:
    """Collects racing records into findings, one per (buffer, writing line, other line,
    phase). ``scope`` is "local" (local memory, within a group), "group" (global memory,
    within a group) or "grid" (global memory, between groups)."""

    def __init__(
        self, ctx: Context, scope: str, scale: int = 1, units: Units | None = None
    ) -> None:
        self.ctx = ctx
        self.scope = scope
        self.units = units
        self.scale = scale  # each racing key stands for this many (one per work-group)
        self.found: dict[_Key, _Pair] = {}
        self.pending: dict[_Key, list[np.ndarray]] = {}
        self.copies = async_copies.copy_sites(ctx)

    def add(self, u: Unit, pos: np.ndarray, keys: np.ndarray, partner: np.ndarray) -> None:
        """Take racing records of ``u`` (``keyscan.OnRace``), grouped by line pair and phase."""
        ctx = self.ctx
        ns = ctx.nsites
        if self.scope != "grid" and self.copies.size:
            # Within a group a copy is the group's own operation: async_copies finds those.
            keep = ~np.isin(partner % ns, self.copies) & (u.site not in self.copies)
            if not keep.all():
                pos, keys, partner = pos[keep], keys[keep], partner[keep]
            if pos.size == 0:
                return
        if self.scope == "group":
            # Pairs from different groups are the "grid" scope's to report.
            same = ctx.gdense[partner // ns] == ctx.gdense[u.wi[pos]]
            if not same.all():
                pos, keys, partner = pos[same], keys[same], partner[same]
            if pos.size == 0:
                return
        wsite = partner % ns
        if self.scope == "grid":
            phase = np.zeros(pos.size, dtype=np.int64)
        else:
            phase = u.phase[pos].astype(np.int64)
        pspan = int(phase.max()) + 1
        code = wsite * pspan + phase
        lo, hi = int(code.min()), int(code.max())
        codes = [lo] if lo == hi else np.flatnonzero(np.bincount(code - lo)) + lo
        for c in codes:
            sel = None if lo == hi else np.flatnonzero(code == c)
            ws = ctx.trace.sites[int(c) // pspan]
            p = None if self.scope == "grid" else int(c) % pspan
            key = (u.buffer, ws.line, u.line, p)
            entry = self.found.get(key)
            if entry is None:
                entry = self.found[key] = _Pair(ws.op, u.op, int(c) // pspan, u.site)
            few = slice(0, EXAMPLES) if sel is None else sel[:EXAMPLES]
            if len(entry.wis) < EXAMPLES:
                for wp, wo in zip(
                    (partner[few] // ns).tolist(), u.wi[pos[few]].tolist(), strict=True
                ):
                    entry.wis += [wp, wo]
            if len(entry.elements) < EXAMPLES:
                es = ctx.trace.buffers[u.buffer].elem_size
                entry.elements += (u.off[pos[few]] // es).tolist()
            if self.scope != "grid" and len(entry.samples) < _SAMPLES:
                some = slice(0, _SAMPLES) if sel is None else sel[:_SAMPLES]
                records = u.positions(pos[some]).tolist()
                partners = (partner[some] // ns).tolist()
                entry.samples += [
                    fences.Sample(int(r), int(w), int(c) // pspan)
                    for r, w in zip(records, partners, strict=True)
                ]
            self.pending.setdefault(key, []).append(keys if sel is None else keys[sel])

    def flush(self, size: int) -> None:
        """Count the distinct racing keys found since the last flush (keys index a table of
        ``size`` entries; keys of different flushes never coincide)."""
        if not self.pending:
            return
        scratch = np.empty(size, dtype=np.int64)
        for key, parts in self.pending.items():
            ks = np.concatenate(parts) if len(parts) > 1 else parts[0]
            order = np.arange(ks.size, dtype=np.int64)
            scratch[ks] = order
            distinct = int(np.count_nonzero(scratch[ks] == order))
            self.found[key].count += distinct * self.scale
        self.pending.clear()

    def findings(self) -> list[Finding]:
        # The same pair of lines racing in many phases (a loop around the racy code) is one
        # problem: one finding, at its first phase, counting every phase.
        """One finding per (buffer, writing line, other line)."""
        merged: dict[tuple[int, int, int], tuple[int | None, _Pair, int]] = {}
        mirrored: dict[tuple[int, int, int, int | None], int] = {}
        for (b, wline, oline, phase), e in sorted(
            self.found.items(), key=lambda item: (item[0][:3], item[0][3] or 0)
        ):
            # Two lines that both write race both ways round: one finding, the first line's.
            if e.other_op in WRITES and (b, oline, wline, phase) in mirrored:
                _, entry, _ = merged[(b, oline, wline)]
                entry.wis += e.wis
                entry.elements += e.elements
                entry.samples += e.samples[: max(0, _SAMPLES - len(entry.samples))]
                if e.count > mirrored[(b, oline, wline, phase)]:
                    entry.count += e.count - mirrored[(b, oline, wline, phase)]
                continue
            mirrored[(b, wline, oline, phase)] = e.count
            key = (b, wline, oline)
            if key in merged:
                first, entry, phases = merged[key]
                entry.count += e.count
                entry.samples += e.samples[: max(0, _SAMPLES - len(entry.samples))]
                merged[key] = (first, entry, phases + 1)
            else:
                merged[key] = (phase, replace(e), 1)
        out = []
        for (b, wline, oline), (phase, e, phases) in merged.items():
            name = self.ctx.trace.buffers[b].name
            where = f"phase {phase}" if phases == 1 else f"phase {phase} and {phases - 1} later"
            where += "" if phases <= 2 else " phases"
            wverb, overb = VERB[e.write_op], VERB[e.other_op]
            local = self.scope == "local"
            subkind = NO_LOCAL_BARRIER if local else NO_GLOBAL_BARRIER
            fence = _FENCE[subkind]
            named: tuple[int, ...] = (wline, oline)
            remedy = ""
            between = None if self.scope == "grid" else fences.between(self.ctx, e.samples)
            fence_site = None if between is None else between.fence
            also = ""
            if fence_site is not None:
                named = (wline, oline, fence_site.line)
                remedy = (
                    f"replace the {fence_site.text} at line {fence_site.line} with barrier({fence})"
                )
                # Some pairs have the fence between them, others nothing at all: the missing
                # barrier comes first, and the fence is named as needing to be one too.
                also = (
                    f" The {fence_site.text} at line {fence_site.line} does not order them "
                    "either: it orders this work-item's own accesses only, so a "
                    f"barrier({fence}) is needed in its place too."
                )
            # Who accesses the elements, on which lines (within a group, it says so).
            both = (
                f"line {wline} {wverb} {name}[] while other work-items "
                f"{_OF_GROUP[self.scope]}{_plural(overb)} the same elements on that same line"
                if wline == oline
                else f"line {wline} {wverb} it and line {oline} {overb} it, by different "
                f"work-items{_OF_ONE_GROUP[self.scope]}"
            )
            if between is not None and between.only and fence_site is not None:
                subkind = FENCE_NOT_BARRIER
                msg = (
                    f"Race on {name} in {where}: {both}, with only a {fence_site.text} "
                    f"between them. The {fence_site.text} at line {fence_site.line} orders "
                    f"this work-item's own accesses only; a barrier({fence}) is needed here "
                    f"(in its place, where every work-item of the group reaches it)."
                )
            elif self.scope == "grid":
                subkind = BETWEEN_GROUPS
                if wline == oline:
                    what = (
                        f"line {wline} {wverb} {name}[] and, on that same line, work-items of "
                        f"other work-groups {_plural(overb)} the same elements"
                    )
                else:
                    what = (
                        f"line {wline} {wverb} it and line {oline} {overb} the same "
                        "elements from another work-group"
                    )
                msg = (
                    f"Race on {name} between work-groups: {what}. Work-groups cannot wait "
                    "for each other within one launch: give each element to one work-group, "
                    "use atomics, or split the kernel in two."
                )
                if {e.write_op, e.other_op} == {READ, ATOMIC}:
                    subkind = READ_BESIDE_ATOMIC
                    read_line = wline if e.write_op == READ else oline
                    msg = (
                        f"Race on {name} between work-groups: {what}. The plain read on line "
                        f"{read_line} is not ordered with the atomic: {_READ_ATOMICALLY}"
                    )
            elif (
                self.scope == "group"
                and {e.write_op, e.other_op} == {READ, ATOMIC}
                and (wline == oline or not self._unfenced_between(e))
            ):
                # As between groups: an atomic read orders it with every work-item's atomics
                # (a barrier only with its own group's, and never in a compare-and-swap loop).
                # A barrier that stands between them without the global flag is named below.
                subkind = READ_BESIDE_ATOMIC
                read_line = wline if e.write_op == READ else oline
                msg = (
                    f"Race on {name} in {where}: {both}. The plain read on line {read_line} is "
                    f"not ordered with the atomic: {_READ_ATOMICALLY}"
                )
            elif wline == oline and e.write_op == e.other_op == WRITE:
                subkind = SAME_WRITES
                msg = (
                    f"Race on {name} in {where}: line {wline} writes {name}[] while other "
                    f"work-items {_OF_GROUP[self.scope]}write the same elements on that same "
                    "line: which value is left depends on which work-item writes last. No "
                    "barrier orders one statement's writes: give each element "
                    "one writer (the write inside if (get_local_id(0) == 0), say), or combine "
                    "the values with an atomic."
                )
            elif wline == oline and e.write_op == e.other_op == RMW:
                subkind = SAME_UPDATES
                msg = (
                    f"Race on {name} in {where}: line {wline} updates {name}[] while "
                    f"other work-items {_OF_GROUP[self.scope]}update the same elements on that "
                    "same line: their reads and writes interleave, and updates are lost "
                    "(like bins[v]++ run by many work-items at once). No barrier orders one "
                    "statement's updates: use an atomic (atomic_inc, atomic_add), or give "
                    "each element to one work-item."
                )
            elif wline == oline:
                msg = (
                    f"Race on {name} in {where}: line {wline} {wverb} {name}[] while "
                    f"other work-items {_OF_GROUP[self.scope]}{_plural(overb)} the same "
                    "elements on that same line, "
                    "with no barrier between (like p[0] += p[32] run by many work-items at "
                    "once). Split the step: read into a private variable, then a "
                    f"barrier({fence}) that every work-item of the group reaches (outside any "
                    "branch only some take), then write; or use an atomic."
                ) + also
            elif unfenced := self._unfenced_between(e):
                flag = "local" if local else "global"
                barriers = ", ".join(str(n) for n in unfenced)
                msg = (
                    f"Race on {name} in {where}: line {wline} {wverb} it and line "
                    f"{oline} {overb} it, by different work-items{_OF_ONE_GROUP[self.scope]}. "
                    "The barrier between them "
                    f"(line {barriers}) does not name CLK_{flag.upper()}_MEM_FENCE, so it does "
                    f"not order {flag} memory (OpenCL 1.2): add {fence} to its flags."
                )
                subkind, named = UNFENCED, named + unfenced
            else:
                a, c = sorted((wline, oline))
                msg = (
                    f"Race on {name} in {where}: line {wline} {wverb} it and line "
                    f"{oline} {overb} it, by different work-items{_OF_ONE_GROUP[self.scope]}, "
                    "with no barrier between. "
                    f"A barrier({fence}) is missing between line {a} and line {c}; place "
                    "it where every work-item of the group reaches it (if the lines are "
                    "inside a condition only some take, close the condition before it and "
                    "reopen it after)."
                ) + also
            out.append(
                Finding(
                    kind=KIND,
                    line=min(wline, oline),
                    phase=phase,
                    buffer=name,
                    work_items=self.ctx.labels(e.wis),
                    count=e.count,
                    message=msg,
                    elements=tuple(dict.fromkeys(e.elements))[:EXAMPLES],
                    subkind=subkind,
                    other_lines=named,
                    remedy=remedy,
                )
            )
        return out

    def _unfenced_between(self, pair: _Pair) -> tuple[int, ...]:
        """When the two sites of ``pair`` never run in one phase (a barrier stands between
        them, but without this space's fence flag): the lines of the barriers that lack it."""
        if self.units is None or self.scope == "grid":
            return ()
        space = LOCAL if self.scope == "local" else GLOBAL
        bit = memory_model.FENCE_OF_SPACE[space]
        lines = memory_model.epochs(self.ctx, self.units).unfenced[bit]
        if not lines:
            return ()
        phases = [
            np.unique(
                np.concatenate(
                    [u.phase for u in self.units.memory if u.site == sid and u.m]
                    or [np.zeros(0, dtype=np.int32)]
                )
            )
            for sid in (pair.write_site, pair.other_site)
        ]
        if np.intersect1d(phases[0], phases[1]).size:
            return ()
        return tuple(lines)


# Global memory races within a group and between groups: a race within says so.
_OF_GROUP = {"local": "", "group": "of the same work-group ", "grid": ""}
_OF_ONE_GROUP = {"local": "", "group": " of one work-group", "grid": ""}


def _plural(verb: str) -> str:
    """'reads' -> 'read', 'atomically updates' -> 'atomically update'."""
    return verb[:-1] if verb.endswith("s") else verb


def _word_keys(u: Unit) -> Iterator[tuple[np.ndarray | None, np.ndarray]]:
    yield from u.key_cells()


def _phase_word_keys(
    u: Unit,
    written: np.ndarray,
    rank: np.ndarray,
    p0: int,
    p1: int,
    table: np.ndarray | None,
) -> Iterator[tuple[np.ndarray | None, np.ndarray]]:
    """Keys (written word, epoch - p0) for the records on written words in global-memory
    epochs p0..p1-1 (see ``memory_model``)."""
    ph = u.epoch(GLOBAL, table)
    inrange = None if p0 == 0 and p1 > int(ph.max()) else (ph >= p0) & (ph < p1)
    for sel, w in u.key_cells():
        keep = written[w]
        if inrange is not None:
            keep &= inrange if sel is None else inrange[sel]
        k = np.flatnonzero(keep)
        pos = k if sel is None else sel[k]
        yield pos, rank[w[k]] * (p1 - p0) + (ph[pos] - p0)


class SameValues:
    """Writes that would race but for every conflicting write storing the same value, per
    (buffer, line): counted in distinct keys, with a few work-items and elements."""

    def __init__(self, ctx: Context, scale: int = 1) -> None:
        self.ctx = ctx
        self.scale = scale
        self.found: dict[tuple[int, int], _Pair] = {}
        self.pending: dict[tuple[int, int], list[np.ndarray]] = {}

    def add(self, u: Unit, pos: np.ndarray, keys: np.ndarray) -> None:
        """Take such writes of ``u`` (``keyscan.OnSame``)."""
        key = (u.buffer, u.line)
        entry = self.found.setdefault(key, _Pair(u.op, u.op, u.site, u.site))
        if len(entry.wis) < EXAMPLES:
            entry.wis += u.wi[pos[:EXAMPLES]].tolist()
            es = self.ctx.trace.buffers[u.buffer].elem_size
            entry.elements += (u.off[pos[:EXAMPLES]] // es).tolist()
        self.pending.setdefault(key, []).append(keys)

    def flush(self, scale: int = 1) -> None:
        """Count the distinct keys taken since the last flush."""
        for key, parts in self.pending.items():
            self.found[key].count += int(np.unique(np.concatenate(parts)).size) * scale
        self.pending.clear()


@dataclass
class RaceScan:
    """The race passes' results, kept for the race and same-value detectors."""

    local: Races
    grid: Races
    group: Races
    same: SameValues


_MEMO_KEY = "races"


def scan(ctx: Context, units: Units) -> RaceScan:
    """Races in local memory (from the shared local-memory pass), on global memory between
    work-groups and within a work-group; run once per analysis, then kept."""
    kept = ctx.memo.get(_MEMO_KEY)
    if isinstance(kept, RaceScan):
        return kept
    scanned = local_memory.scan(ctx, units)
    local = Races(ctx, "local", scanned.scale, units)
    same = SameValues(ctx)
    for batch in scanned.batches:
        for u, pos, keys, partner in batch.races:
            local.add(u, pos, keys, partner)
        local.flush(batch.size)
        for u, pos, keys in batch.same_value:
            same.add(u, pos, keys)
        same.flush(scanned.scale)
    grid, group = _global_races(ctx, units, same)
    result = RaceScan(local, grid, group, same)
    ctx.memo[_MEMO_KEY] = result
    return result


def find(ctx: Context, units: Units) -> list[Finding]:
    """Races in local memory, then on global memory between work-groups, then on global
    memory within a work-group."""
    found = scan(ctx, units)
    copies = async_copies.in_flight(ctx)
    return ordered(found.local.findings() + found.grid.findings() + found.group.findings() + copies)


def _global_races(ctx: Context, units: Units, same: SameValues) -> tuple[Races, Races]:
    grid = Races(ctx, "grid", units=units)
    group = Races(ctx, "group", units=units)
    table = memory_model.epochs(ctx, units).table(GLOBAL)
    written_bufs = sorted(
        {u.buffer for u in units.memory if ctx.space(u.buffer) == GLOBAL and u.op in WRITES}
    )
    for b in written_bufs:
        ub = [u for u in units.memory if u.buffer == b and u.m]
        NW = ctx.cell_count(b)
        jobs = [keyscan.Job(u, partial(_word_keys, u)) for u in ub]
        status, between = keyscan.scan(ctx, jobs, NW, ctx.gdense, grid.add, on_same=same.add)
        grid.flush(NW)
        same.flush()
        # Within a group: a word no two groups race on is written by one group alone (but
        # for atomics), so a key of the word and epoch holds one group's accesses; a word
        # that races between groups is keyed by its group too (a key of the word alone
        # keeps one writer, often of another group, and the pair within a group was lost).
        written = status != 0
        Pb = max(int(u.epoch(GLOBAL, table).max()) for u in ub) + 1
        if between is not None:
            shared = written & between
            written &= ~between
            _within_each_group(ctx, ub, shared, Pb, table, group)
        rank = np.cumsum(written) - 1
        nwritten = int(rank[-1]) + 1 if rank.size else 0
        if nwritten == 0:
            continue
        step = max(1, keyscan.DENSE_LIMIT // nwritten)
        for p0 in range(0, Pb, step):
            p1 = min(Pb, p0 + step)
            size = nwritten * (p1 - p0)
            jobs = [
                keyscan.Job(u, partial(_phase_word_keys, u, written, rank, p0, p1, table))
                for u in ub
            ]
            keyscan.scan(ctx, jobs, size, None, group.add, on_same=same.add)
            group.flush(size)
            same.flush()
    return grid, group


def _within_each_group(
    ctx: Context,
    ub: list[Unit],
    shared: np.ndarray,
    Pb: int,
    table: np.ndarray | None,
    group: Races,
) -> None:
    """Races within a group on the words of ``shared`` (they race between groups too): keyed
    by (group, word, epoch); where groups times words pass ``keyscan.DENSE_LIMIT``, only the
    (group, word) pairs some work-item touches are numbered. Writes that only agree with
    each other here were the grid scan's to note, if any."""
    srank = np.cumsum(shared) - 1
    nshared = int(srank[-1]) + 1 if srank.size else 0
    if nshared == 0:
        return
    pairs: np.ndarray | None = None  # the (group, word) codes touched, where numbered
    npairs = ctx.ngroups * nshared
    if npairs > keyscan.DENSE_LIMIT:
        touched = []
        for u in ub:
            g = ctx.gdense[u.wi].astype(np.int64)
            for sel, w in u.key_cells():
                k = np.flatnonzero(shared[w])
                if k.size:
                    pos = k if sel is None else sel[k]
                    touched.append(np.unique(g[pos] * nshared + srank[w[k]]))
        if not touched:
            return
        pairs = np.unique(np.concatenate(touched))
        npairs = int(pairs.size)
    step = max(1, keyscan.DENSE_LIMIT // npairs)
    for p0 in range(0, Pb, step):
        p1 = min(Pb, p0 + step)
        size = npairs * (p1 - p0)
        jobs = [
            keyscan.Job(
                u,
                partial(_group_word_keys, ctx, u, shared, srank, nshared, pairs, p0, p1, table),
            )
            for u in ub
        ]
        keyscan.scan(ctx, jobs, size, None, group.add)
        group.flush(size)


def _group_word_keys(
    ctx: Context,
    u: Unit,
    shared: np.ndarray,
    srank: np.ndarray,
    nshared: int,
    pairs: np.ndarray | None,
    p0: int,
    p1: int,
    table: np.ndarray | None,
) -> Iterator[tuple[np.ndarray | None, np.ndarray]]:
    """Keys ((group, word) pair, epoch - p0) for the records on the words of ``shared`` in
    global-memory epochs p0..p1-1: the pair is group * words + word, or its place in
    ``pairs`` where those are numbered."""
    ph = u.epoch(GLOBAL, table)
    g = ctx.gdense[u.wi].astype(np.int64)
    inrange = None if p0 == 0 and p1 > int(ph.max()) else (ph >= p0) & (ph < p1)
    for sel, w in u.key_cells():
        keep = shared[w]
        if inrange is not None:
            keep &= inrange if sel is None else inrange[sel]
        k = np.flatnonzero(keep)
        pos = k if sel is None else sel[k]
        pair = g[pos] * nshared + srank[w[k]]
        if pairs is not None:
            pair = np.searchsorted(pairs, pair)
        yield pos, pair * (p1 - p0) + (ph[pos] - p0)


_READ_ATOMICALLY = (
    "read it with an atomic too (atomic_or(p, 0) returns the value), or, where it is only "
    "the first guess of a compare-and-swap loop that goes on with the value atomic_cmpxchg "
    "returns, the answer comes out right on common devices, but the read remains a race in "
    "OpenCL's memory model."
)


def same_cause(f: Finding) -> Hashable:
    """Races with one root cause: those on a buffer between work-groups; those past the same
    unfenced barriers; those with no barrier, per buffer and phase (one missing barrier)."""
    if f.subkind in (BETWEEN_GROUPS, READ_BESIDE_ATOMIC, UNFENCED, async_copies.SUBKIND):
        return (f.subkind, f.buffer)
    if f.subkind == FENCE_NOT_BARRIER:
        return (f.subkind, f.buffer, f.remedy)  # one fence to replace
    if f.subkind in (SAME_UPDATES, SAME_WRITES):
        return (f.subkind, f.buffer, f.line)  # one statement to change
    return (f.subkind, f.buffer, f.phase)


def cause(findings: Sequence[Finding]) -> str:
    """The root cause of races that share one, in words."""
    first, buf, where, n = findings[0], findings[0].buffer or "", span(findings), several(findings)
    if first.subkind == BETWEEN_GROUPS:
        return f"Work-groups access the same elements of {buf} on {where}{n}."
    if first.subkind == READ_BESIDE_ATOMIC:
        who = "work-groups" if all(f.phase is None for f in findings) else "work-items"
        return (
            f"A plain read of {buf} meets atomic updates of the same elements by other "
            f"{who} on {where}{n}."
        )
    if first.subkind == UNFENCED:
        return f"A barrier between the accesses to {buf} on {where} lacks a fence flag{n}."
    if first.subkind == async_copies.SUBKIND:
        return f"{buf} is accessed on {where} while an async copy may still move it{n}."
    if first.subkind == SAME_UPDATES:
        return f"Work-items of one group update the same elements of {buf} at once on {where}{n}."
    if first.subkind == SAME_WRITES:
        return (
            f"Work-items of one group write the same elements of {buf} on {where}, which "
            f"value is left depending on which writes last{n}."
        )
    if first.subkind == FENCE_NOT_BARRIER:
        return (
            f"Only a fence stands between accesses to the same elements of {buf} by "
            f"different work-items of one group on {where}; a fence orders each "
            f"work-item's own accesses only{n}."
        )
    return (
        f"No barrier orders the accesses to {buf} on {where} (phase {first.phase}): "
        f"work-items of one group read and write the same elements in one phase{n}."
    )


def advice(findings: Sequence[Finding]) -> str:
    """What to do once for races that share a root cause."""
    first, buf = findings[0], findings[0].buffer or ""
    if first.subkind == BETWEEN_GROUPS:
        return (
            "Work-groups cannot wait for each other within one launch: give each element to "
            "one work-group, use atomics, or split the kernel in two."
        )
    if first.subkind == READ_BESIDE_ATOMIC:
        return "Where a value other work-items update atomically is read, " + _READ_ATOMICALLY
    if first.subkind == async_copies.SUBKIND:
        return (
            "Wait for each async copy (wait_group_events with its event, reached by every "
            "work-item of the group) before any work-item touches what it moves, and put a "
            "barrier between the writes a copy reads and the copy."
        )
    if first.subkind == SAME_WRITES:
        return (
            "Give each element one writer, or combine the values with an atomic: a barrier "
            "cannot order the writes of one statement."
        )
    if first.subkind == SAME_UPDATES:
        return (
            "Make the update atomic (atomic_inc, atomic_add), or give each element to one "
            "work-item: a barrier cannot order the read-modify-writes of one statement."
        )
    if first.subkind == FENCE_NOT_BARRIER:
        return f"{first.remedy[0].upper()}{first.remedy[1:]}. {BARRIER_RULE}"
    if first.subkind == UNFENCED:
        return (
            "Add the missing flag (named in each finding) to that barrier's flags; the barrier "
            "stays where it is."
        )
    fences_too = "".join(
        f" Also {r}: it orders nothing between work-items."
        for r in dict.fromkeys(f.remedy for f in findings if f.remedy)
    )
    return (
        f"Order them with barrier({_FENCE.get(first.subkind, _FENCE[NO_LOCAL_BARRIER])}). "
        f"Where one statement both reads and writes {buf} (p[0] += p[s]), split it: read into "
        f"a private variable, barrier, write back, barrier before the next step reads."
        f"{fences_too} {BARRIER_RULE}"
    )


DETECTOR = Detector(
    KIND,
    find,
    order=50,
    category=Category.BUG,
    cause=cause,
    advice=advice,
    same_cause=same_cause,
)
