"""How the records are grouped for analysis: one unit per (access site, buffer), in-bounds and
out-of-bounds records apart, and one per barrier site.

A unit keeps the trace's (work-item, sequence) order, so a work-item's k-th execution of the
site is found by position. When every work-item ran the same sequence of accesses (no
divergent control flow), a site's records are columns of a (work-items, records) matrix and
per-work-item values are broadcast rather than gathered; when, further, every work-group made
the same local-memory accesses (as tiled kernels do), the first group stands for all in the
local-memory analyses, which are per group, and counts are scaled by the number of groups.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import numpy.ma  # np.unique imports it on its first call: here, not in a trace's analysis

from explorer.trace.analysis.context import I32_MAX, Context
from explorer.trace.analysis.threads import thread_count, thread_map
from explorer.trace.recorded import (
    ATOMIC,
    BARRIER,
    LOCAL,
    PHASE_MASK,
    PHASE_SHIFT,
    READ,
    RMW,
    WRITE,
    Trace,
    true_offsets,
    word_buffer,
    word_oob,
    word_phase,
    word_site,
)

Cells = list[tuple[np.ndarray | None, np.ndarray]]


class Unit:
    """The records of one site on one buffer, in the trace's (work-item, sequence) order.

    Either ``idx`` lists the record positions, or (when every work-item ran the same sequence)
    ``cols`` lists the site's positions within each work-item's ``L`` records."""

    def __init__(
        self,
        ctx: Context,
        site: int,
        buffer: int,
        wi: np.ndarray | None,
        off: np.ndarray,
        size: int | np.ndarray,
        *,
        idx: np.ndarray | None = None,
        cols: np.ndarray | None = None,
        per_wi: int | None = None,
        nwi: int | None = None,
        scale: int = 1,
    ) -> None:
        self.ctx = ctx
        self.site = site
        s = ctx.trace.sites[site]
        self.op = s.op
        self.atomic = s.op == ATOMIC or s.atomic  # atomics never race with each other
        self.line = s.line
        self.buffer = buffer
        self._wi = wi  # None: built on first use (a uniform unit's are implied by its shape)
        self.off = off
        self.size = size
        self.idx = idx
        self.cols = cols
        self.count = per_wi  # records per work-item when it is the same for all
        self.nwi = ctx.W if nwi is None else nwi  # uniform: the unit covers work-items < nwi
        self.scale = scale  # each record stands for this many (one per work-group)
        self._phase: np.ndarray | None = None
        self._epochs: dict[int, np.ndarray] = {}
        self._maxoff: int | None = None
        self._words: Cells | None = None
        self._keys: Cells | None = None

    @property
    def m(self) -> int:
        """Number of records."""
        return int(self.off.size)

    @property
    def wi(self) -> np.ndarray:
        """The work-item of each record."""
        if self._wi is None:
            per = self._columns().size
            self._wi = np.repeat(np.arange(self.nwi, dtype=np.int32), per)
        return self._wi

    def first_wi(self, n: int) -> np.ndarray:
        """``wi[:n]``, without building ``wi`` where it is not built yet."""
        if self._wi is not None:
            return self._wi[:n]
        per = self._columns().size
        rows = min(self.nwi, -(-n // max(per, 1)))
        return np.repeat(np.arange(rows, dtype=np.int32), per)[:n]

    def positions(self, pos: np.ndarray) -> np.ndarray:
        """Trace record indices of the unit's records ``pos``."""
        if self.idx is not None:
            return self.idx[pos]
        cols = self._columns()
        k = cols.size
        return (pos // k) * (self.ctx.n // self.ctx.W) + cols[pos % k]

    def _columns(self) -> np.ndarray:
        if self.cols is None:
            raise AssertionError("a unit has either record positions or columns")
        return self.cols

    def gather(self, arr: np.ndarray) -> np.ndarray:
        """``arr`` (one value per trace record) at the unit's records."""
        if self.idx is not None:
            return arr[self.idx]
        rows = arr.reshape(self.ctx.W, -1)[: self.nwi]
        return np.take(rows, self._columns(), axis=1).reshape(-1)

    def seq(self, pos: np.ndarray | None = None) -> np.ndarray:
        """Each record's position in its work-item's own sequence (of the records ``pos``, or
        of all). A uniform unit's columns are those positions: nothing to gather."""
        if self.cols is not None:
            cols = self.cols.astype(np.int32)
            return np.tile(cols, self.nwi) if pos is None else cols[pos % cols.size]
        if pos is None:
            return self.gather(self.ctx.trace.seq)
        return self.ctx.trace.seq[self.positions(pos)]

    def per_wi(self, table: np.ndarray, per_col: np.ndarray | None = None) -> np.ndarray:
        """``table[wi]`` for each record, plus ``per_col`` (one value per column of a uniform
        unit, the same for every work-item) when given; broadcast, not gathered, when the
        unit is uniform."""
        if self.cols is not None:
            out = table[: self.nwi, None] + (per_col if per_col is not None else 0)
            return np.broadcast_to(out, (self.nwi, self.cols.size)).reshape(-1)
        return table[self.wi]

    @property
    def phase(self) -> np.ndarray:
        """Each record's phase (barriers its work-item had passed)."""
        if self._phase is None:
            row = self.ctx.phase_row
            if self.cols is not None and row is not None:
                self._phase = np.tile(row[self.cols], self.nwi)
            else:
                self._phase = self.gather(self.ctx.trace.phase)
        return self._phase

    def epoch(self, space: int, table: np.ndarray | None) -> np.ndarray:
        """Each record's epoch in ``space`` (a FENCE_* bit): the barriers ordering that space
        its work-group had passed, from ``table[group, phase]`` (see ``memory_model``); the
        phase itself when ``table`` is None (every barrier orders the space)."""
        if table is None:
            return self.phase
        kept = self._epochs.get(space)
        if kept is None:
            row = self.ctx.phase_row
            if self.cols is not None and row is not None:
                # Every work-item ran the same sequence, so every group passed the same barriers.
                kept = np.tile(table[0][np.minimum(row[self.cols], table.shape[1] - 1)], self.nwi)
            else:
                P = table.shape[1]
                flat = self.ctx.gdense[self.wi] * P + np.minimum(self.phase, P - 1)
                kept = table.reshape(-1)[flat]
            self._epochs[space] = kept
        return kept

    @property
    def max_end(self) -> int:
        """One past the highest byte touched."""
        if self._maxoff is None:
            if not self.m:
                self._maxoff = 0
            elif isinstance(self.size, np.ndarray):
                self._maxoff = int((self.off + self.size).max())
            else:
                self._maxoff = int(self.off.max()) + int(self.size)
        return self._maxoff

    def words(self) -> Cells:
        """The 4-byte words the records cover (see ``cells``), kept: several analyses use
        them."""
        if self._words is None:
            self._words = list(cells(self.off, self.size, 4, self.max_end // 4 < I32_MAX))
        return self._words

    def key_cells(self) -> Cells:
        """The cells of ``ctx.cell_bytes`` of its buffer that the records cover: what the
        race, uninitialised-read and coverage passes key on, so two accesses meet in a key
        exactly when they touch a byte in common. The words, for a buffer accessed in whole
        aligned words (most are)."""
        cell = self.ctx.cell_bytes(self.buffer)
        if cell == 4:
            return self.words()
        if self._keys is None:
            self._keys = list(cells(self.off, self.size, cell, self.max_end // cell < I32_MAX))
        return self._keys

    def alignment(self) -> int:
        """The largest power of two up to 4 that divides every offset and size here."""
        if self.m == 0:
            return 4
        size = self.size if isinstance(self.size, np.ndarray) else np.array([self.size])
        bits = int(np.bitwise_or.reduce(size.astype(np.int64) & 3)) | 4
        if bits & 1 == 0:
            bits |= int(np.bitwise_or.reduce(self.off)) & 3
        return bits & -bits

    def subset(self, pos: np.ndarray | slice) -> Unit:
        """The unit of the records ``pos`` only."""
        if isinstance(pos, slice):
            pos = np.arange(self.m)[pos]
        sub = Unit(
            self.ctx,
            self.site,
            self.buffer,
            self.wi[pos],
            self.off[pos],
            self.size[pos] if isinstance(self.size, np.ndarray) else self.size,
            idx=self.positions(pos),
        )
        if self._phase is not None:
            sub._phase = self._phase[pos]
        return sub


@dataclass(frozen=True)
class BarrierSite:
    """The records of one barrier site: which work-items passed it, how often."""

    site: int
    line: int
    # The work-item of each pass; None where each of the first ``nwi`` work-items passed it
    # ``count`` times (``wi`` builds them on first use).
    passes: np.ndarray | None
    count: int | None  # passes per work-item when it is the same for all
    # The phase of each pass (barriers passed before it); when every work-item passed the site
    # at the same phases, only one work-item's (``count`` of them).
    phase: np.ndarray | None = None
    nwi: int = 0

    @cached_property
    def wi(self) -> np.ndarray:
        """The work-item of each pass."""
        if self.passes is not None:
            return self.passes
        return np.repeat(np.arange(self.nwi, dtype=np.int32), self.count or 0)

    @property
    def size(self) -> int:
        """The number of passes."""
        return int(self.passes.size) if self.passes is not None else self.nwi * (self.count or 0)


@dataclass(frozen=True)
class Units:
    """A trace's records, grouped: in-bounds accesses, out-of-bounds accesses, barriers,
    and the accesses skipped because their pointer was not aligned for their type (recorded
    as skipped at an offset inside their buffer)."""

    memory: list[Unit]
    out_of_bounds: list[Unit]
    barriers: list[BarrierSite]
    misaligned: list[Unit] = field(default_factory=list)


def by_site_and_buffer(units: list[Unit]) -> dict[tuple[int, int], list[Unit]]:
    """``units`` gathered by (site, buffer): one finding's accesses (the records of a site on
    a buffer may come in several units)."""
    merged: dict[tuple[int, int], list[Unit]] = {}
    for u in units:
        merged.setdefault((u.site, u.buffer), []).append(u)
    return merged


def reaches_beyond(us: list[Unit], named: list[int], per: int = 1) -> bool:
    """Whether a record of ``us`` reaches another place than those ``named`` (byte offsets
    divided by ``per``: elements, for an element's size): where a finding names examples
    taken from a sample, whether "and others" is true. Every record is looked at."""
    kept = np.asarray(named, dtype=np.int64)
    return any(not np.isin(u.off // per, kept).all() for u in us if u.m)


def split(ctx: Context) -> Units:
    """Group the records of ``ctx.trace`` into units (see the module's docstring)."""
    t = ctx.trace
    units = Units([], [], [])
    W, n = ctx.W, ctx.n
    if n == 0 or W == 0:
        return units
    L = n // W
    uniform = (
        n == W * L
        and ctx.overflowed.size == 0
        and bool((t.wi_count == L).all())
        and bool((np.asarray(t.kept) == L).all())
        and not bool(word_oob(t.word[:L]).any())
    )
    if not (uniform and _split_uniform(ctx, L, units)):
        _split_general(ctx, units)
    for u in units.memory:
        ctx.cells[u.buffer] = min(ctx.cell_bytes(u.buffer), u.alignment())
    return units


@dataclass
class RowScan:
    """What one pass over the (W, L) record matrices found: whether every work-item's packed
    words equal the first's (``same``), or do but for the phases (``same_but_phase``); whether
    every work-group's offsets at the local-memory columns equal the first group's
    (``alike``, only asked where it could hold); and the offsets of the global sites'
    columns, gathered on the way (meaningful only where ``same_but_phase``)."""

    same: bool
    same_but_phase: bool
    alike: bool
    gathered: list[np.ndarray]


def _split_uniform(ctx: Context, L: int, units: Units) -> bool:
    """Split a trace whose work-items all kept ``L`` records, when they made the same sequence
    of accesses (no divergent control flow): a site's records are the same columns of the
    (W, L) record matrix. False, and nothing split, when they did not."""
    t = ctx.trace
    W = ctx.W
    row = t.word[:L]
    row_site, row_buf, row_size = word_site(row), word_buffer(row), t.sizes_of(row)
    barriers = []
    combos = []
    for sid in np.unique(row_site).tolist():
        cols = np.flatnonzero(row_site == sid)
        s = t.sites[sid]
        if s.op == BARRIER:
            barriers.append((sid, s.line, cols))
            continue
        if s.op not in (READ, WRITE, RMW, ATOMIC):
            continue
        pairs = {(int(b), int(z)) for b, z in zip(row_buf[cols], row_size[cols], strict=True)}
        for b, z in sorted(pairs):
            if b >= 0:
                combos.append((sid, b, z, cols[(row_buf[cols] == b) & (row_size[cols] == z)]))
    is_local = [t.buffers[b].space == LOCAL for _, b, _, _ in combos]
    local = [c for (_, _, _, c), loc in zip(combos, is_local, strict=True) if loc]
    local_cols = np.sort(np.concatenate(local)) if local else None
    spread = [c for (_, _, _, c), loc in zip(combos, is_local, strict=True) if not loc]
    scan = scan_rows(ctx, L, local_cols, spread)
    if not scan.same_but_phase:
        return False
    if scan.same:
        ctx.phase_row = word_phase(row)
    for sid, line, cols in barriers:
        if ctx.phase_row is not None:
            phase = ctx.phase_row[cols]  # one work-item's passes stand for every one's
        else:
            phase = word_phase(np.take(t.word.reshape(W, L), cols, axis=1).reshape(-1))
        units.barriers.append(BarrierSite(sid, line, None, int(cols.size), phase, nwi=W))
    if local and scan.alike and ctx.phase_row is not None:
        ctx.local_scale = ctx.ngroups
    offsets = t.offset.reshape(W, L)
    first = ctx.group_size if ctx.local_scale > 1 else W  # the first group stands for all
    # The local sites' offsets gathered from the (W, L) matrix (the first group's rows only,
    # when it stands for all), side by side; the global sites' came with the scan.
    gathered_local = thread_map(lambda c: np.take(offsets[:first], c, axis=1).reshape(-1), local)
    spread_off = iter(scan.gathered)
    local_off = iter(gathered_local)
    for (sid, b, z, c), loc in zip(combos, is_local, strict=True):
        nwi, scale = (first, ctx.local_scale) if loc else (W, 1)
        off = next(local_off) if loc else next(spread_off)
        units.memory.append(
            Unit(ctx, sid, b, None, off, z, cols=c, per_wi=int(c.size), nwi=nwi, scale=scale)
        )
    return True


# Rows of the record matrices one step of the scan reads (about a megabyte of each matrix,
# so the global sites' columns are gathered from rows still in cache).
_SCAN_BYTES = 1 << 20


def scan_rows(
    ctx: Context, L: int, local_cols: np.ndarray | None, spread: list[np.ndarray]
) -> RowScan:
    """One pass over the trace's (W, L) words and offsets, a block of rows at a time: whether
    every row of words equals the first (all fields, then all but the phase), whether every
    work-group made exactly the same accesses at the local-memory columns ``local_cols``
    (local memory is indexed by local ids and loop counters, rarely by the group id: then
    the first group stands for all in the local-memory analyses, which are per group), and
    the offsets at each of the columns ``spread``, work-item after work-item.

    Reading each matrix once, rather than once per question and once per site, is what
    makes this pass cheap on a trace of tens of millions of records."""
    t = ctx.trace
    W = ctx.W
    words = t.word.reshape(W, L)
    offsets = t.offset.reshape(W, L)
    gs = ctx.group_size
    ask = local_cols is not None and _groups_stored_alike(ctx)
    rows = min(W, max(1, _SCAN_BYTES // (4 * L)))
    if ask:  # blocks that set whole groups, or equal parts of one, beside the first group
        rows = gs * (rows // gs) if rows >= gs else _divisor(gs, rows)
    starts = range(0, W, rows)
    parts = thread_count(len(starts))
    # Each part's comparisons' results, block after block.
    hits = [np.empty((rows, L), dtype=bool) for _ in range(parts)]
    # The blocks are compared with the first block where its rows equal the first row (the
    # usual case: no copy of that row made), else with the first row repeated.
    head = words[:rows]
    np.equal(head, head[0], out=hits[0])
    first_word = head if bool(hits[0].all()) else np.tile(t.word[:L], (rows, 1))
    phaseless = ~np.uint32(PHASE_MASK << PHASE_SHIFT)
    first_phaseless: list[np.ndarray] = []  # made where phases differ
    if ask:  # the columns where the offsets may differ between groups (the global sites')
        elsewhere = np.ones(L, dtype=bool)
        elsewhere[local_cols] = False
    gathered = [np.empty((W, c.size), dtype=offsets.dtype) for c in spread]
    columns = [_stride(c) for c in spread]

    stop = [False]  # a part found rows that differ: the others stop too

    def part(k: int) -> tuple[bool, bool, bool]:
        same = alike = True
        for i in starts[k::parts]:
            if stop[0]:
                return False, False, False
            w = words[i : i + rows]
            r = w.shape[0]
            if same and not _equal(w, first_word[:r], hits[k]):
                same = False
            if not same and not first_phaseless:
                first_phaseless.append(first_word & phaseless)
            if not same and not _equal(w & phaseless, first_phaseless[0][:r], hits[k]):
                stop[0] = True  # not uniform: nothing else matters
                return False, False, False
            o = offsets[i : i + r]
            if alike and ask:  # the first group's rows included
                hit = hits[k][:r]
                if r > gs:  # whole groups, each beside the first
                    np.equal(o.reshape(-1, gs, L), offsets[:gs], out=hit.reshape(-1, gs, L))
                else:  # a group or part of one, beside the same part of the first
                    at = i % gs
                    np.equal(o, offsets[at : at + r], out=hit)
                np.logical_or(hit, elsewhere, out=hit)
                alike = bool(hit.all())
            for c, out in zip(columns, gathered, strict=True):
                out[i : i + r] = o[:, c]
        return same, True, alike

    found = thread_map(part, range(parts))
    return RowScan(
        same=all(f[0] for f in found),
        same_but_phase=all(f[1] for f in found),
        alike=ask and all(f[2] for f in found),
        gathered=[g.reshape(-1) for g in gathered],
    )


def _divisor(n: int, most: int) -> int:
    """The largest divisor of ``n`` up to ``most``."""
    return next(d for d in range(max(1, min(n, most)), 0, -1) if n % d == 0)


def _stride(cols: np.ndarray) -> np.ndarray | slice:
    """``cols`` as a slice where they are evenly spaced (a site in a loop of fixed trip
    count: a strided copy costs a fraction of a gather), else as they are."""
    if cols.size < 2:
        return cols
    step = int(cols[1] - cols[0])
    if step > 0 and bool((np.diff(cols) == step).all()):
        return slice(int(cols[0]), int(cols[-1]) + 1, step)
    return cols


def _equal(a: np.ndarray, b: np.ndarray, hits: np.ndarray) -> bool:
    """Whether the contiguous 4-byte arrays ``a`` and ``b`` (of one shape) are equal, compared
    eight bytes at a time where their size allows (half the comparisons), into ``hits`` (a
    boolean buffer of at least their size, reused: a new one each time is memory not yet
    faulted in)."""
    if a.size % 2 == 0 and a.dtype.itemsize == 4:
        a, b = a.reshape(-1).view(np.uint64), b.reshape(-1).view(np.uint64)
    else:
        a, b = a.reshape(-1), b.reshape(-1)
    hit = hits.reshape(-1)[: a.size]
    np.equal(a, b, out=hit)
    return bool(hit.all())


def _groups_stored_alike(ctx: Context) -> bool:
    """Whether the work-items are stored group by group, each in local-id order, whole
    groups traced, at least two: what setting each group's rows beside the first's needs."""
    G, gs = ctx.ngroups, ctx.group_size
    if G < 2 or gs * G != ctx.W:
        return False
    if not np.array_equal(ctx.llinear, np.arange(ctx.W) % gs):
        return False
    blocks = ctx.gdense.reshape(G, gs)
    return bool((blocks == blocks[:, :1]).all())


def _split_general(ctx: Context, units: Units) -> None:
    t = ctx.trace
    counts = np.bincount(t.site, minlength=len(t.sites))
    any_oob = bool(t.oob.any())
    one_size = int(t.size[0]) if rows_equal(t.size.reshape(-1, 1)) else None
    for sid in np.flatnonzero(counts).tolist():
        s = t.sites[sid]
        if s.op not in (READ, WRITE, RMW, ATOMIC, BARRIER):
            continue
        idx = np.flatnonzero(t.site == sid)
        wi = t.wi[idx]
        if s.op == BARRIER:
            units.barriers.append(BarrierSite(sid, s.line, wi, None, t.phase[idx]))
            continue
        size = t.size[idx] if one_size is None else one_size
        whole = Unit(ctx, sid, s.buffer, wi, t.offset[idx], size, idx=idx)
        buf = t.buffer[idx]
        if bool((buf == s.buffer).all()):
            parts = [(s.buffer, whole)]
        else:
            parts = [(int(b), whole.subset(np.flatnonzero(buf == b))) for b in np.unique(buf)]
        for b, u in parts:
            if any_oob:
                bad = t.oob[u.idx]
                if bad.any():
                    o = u.subset(np.flatnonzero(bad))
                    o.buffer = b if b >= 0 else s.buffer
                    if 0 <= o.buffer < len(t.buffers) and not t.buffers[o.buffer].image:
                        o.off = true_offsets(o.off, t.buffers[o.buffer])  # too far: known?
                    inside = _inside(t, o)
                    if inside.any():  # skipped for its alignment, not for where it points
                        units.misaligned.append(o.subset(np.flatnonzero(inside)))
                        o = o.subset(np.flatnonzero(~inside))
                    if o.m:
                        units.out_of_bounds.append(o)
                    u = u.subset(np.flatnonzero(~bad))
            if b < 0 or u.m == 0:
                continue
            u.buffer = b
            if isinstance(u.size, np.ndarray) and bool((u.size == u.size[0]).all()):
                u.size = int(u.size[0])
            units.memory.append(u)


def rows_equal(mat: np.ndarray, block: int = 1 << 20, mask: np.integer | None = None) -> bool:
    """Whether every row of ``mat`` (bitwise-and ``mask``, when given) equals its first (in
    blocks, to stay in cache)."""
    rows = max(1, block // max(1, mat.shape[1]))
    starts = range(0, mat.shape[0], rows)
    if mask is None:
        first = mat[0]
        return all(thread_map(lambda i: bool((mat[i : i + rows] == first).all()), starts))
    first = mat[0] & mask
    return all(thread_map(lambda i: bool(((mat[i : i + rows] & mask) == first).all()), starts))


def cells(
    off: np.ndarray,
    size: int | np.ndarray,
    cell: int,
    narrow: bool = False,
) -> Iterator[tuple[np.ndarray | None, np.ndarray]]:
    """The ``cell``-byte cells (sectors, words, elements) the accesses cover: yields, for the
    j-th cell of each access, (the records that have a j-th cell, or None for all; its index).
    A float4 vload yields four words. ``narrow``: the indices fit in int32, return them so."""
    if off.size == 0:
        return
    pow2 = cell & (cell - 1) == 0
    shift = cell.bit_length() - 1
    lo = off >> shift if pow2 else off // cell
    if narrow:
        lo = lo.astype(np.int32)
    extra: np.ndarray | None
    if isinstance(size, np.ndarray):
        last = off + (np.maximum(size, 1) - 1)
        hi = last >> shift if pow2 else last // cell
        extra = hi - lo
        nspan = int(extra.max()) + 1
    else:
        rem = int((off & (cell - 1)).max()) if pow2 else int((off % cell).max())
        nspan = (rem + max(int(size), 1) - 1) // cell + 1
        extra = None
        if nspan > 1:
            last = off + (max(int(size), 1) - 1)
            hi = last >> shift if pow2 else last // cell
            extra = hi - lo
            if int(extra.min()) == nspan - 1:
                extra = None  # every access covers every cell
    yield None, lo
    for j in range(1, nspan):
        if extra is None:
            yield None, lo + j
        else:
            sel = np.flatnonzero(extra >= j)
            yield sel, lo[sel] + j


def _inside(t: Trace, u: Unit) -> np.ndarray:
    """Which skipped records of ``u`` lie wholly inside its buffer: the runtime skips an
    access there only where its pointer is not aligned for its type."""
    if not 0 <= u.buffer < len(t.buffers) or t.buffers[u.buffer].image:
        return np.zeros(u.m, dtype=bool)
    info = t.buffers[u.buffer]
    off = np.asarray(u.off, dtype=np.int64)
    return (off >= 0) & (off + np.asarray(u.size, dtype=np.int64) <= info.length * info.elem_size)
