"""Access analysis: turn a decoded trace into findings a person can act on (races, reads of
uninitialised local memory, out-of-bounds accesses, barrier divergence, output coverage) and
into per-site memory statistics (coalescing, bank conflicts, loads per element).

A trace can hold tens of millions of records, so nothing here loops per record and nothing
sorts the whole trace (a full sort of 20M keys costs seconds). Instead:

* records are split by site; a site's records keep the trace's (work-item, sequence) order,
  so a work-item's k-th execution of the site is found by position;
* a warp request (one warp executing one site once) is a row of a dense (request, lane)
  matrix; sorting rows of ``warp`` entries is cheap and gives distinct sectors and banks;
* races and uninitialised reads are found against dense per-key tables (key = work-group,
  phase and word for local memory) holding a representative writer per key, so every check
  is a gather and a comparison; only racing keys are then attributed to writing sites;
* when every work-item ran the same sequence of accesses (no divergent control flow), a
  site's records are columns of a (work-items, records) matrix and per-work-item values are
  broadcast rather than gathered; when, further, every work-group made the same local-memory
  accesses (as tiled kernels do), the first group stands for all in the local-memory
  analyses, which are per group, and counts are scaled by the number of groups.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from explorer.trace.records import (
    ATOMIC,
    BARRIER,
    GLOBAL,
    LOCAL,
    NO_SPACE,
    OP_NAMES,
    PHASE_MASK,
    PHASE_SHIFT,
    READ,
    RMW,
    SPACE_NAMES,
    WRITE,
    Finding,
    SiteStats,
    Trace,
    word_buffer,
    word_oob,
    word_phase,
    word_site,
    word_size,
)

__all__ = ["EXAMPLES", "Analysis", "analyse", "format_report"]

EXAMPLES = 4  # work-items (and elements) named in one finding
_DENSE_LIMIT = 1 << 23  # entries in one dense per-key table; larger key spaces go in batches
_WRITES = (WRITE, RMW, ATOMIC)
_READS = (READ, RMW)
_VERB = {READ: "reads", WRITE: "writes", RMW: "updates", ATOMIC: "atomically updates"}
_KIND_ORDER = {
    "overflow": 0,
    "not-traced": 1,
    "out-of-bounds": 2,
    "barrier-divergence": 3,
    "race": 4,
    "uninitialized": 5,
    "coverage": 6,
}
_PW, _AT, _INIT = 1, 2, 4  # status bits of a key: plain write, atomic, written in an earlier phase
_I32_MAX = int(np.iinfo(np.int32).max)
_I64_MAX = int(np.iinfo(np.int64).max)


@dataclass(frozen=True)
class Analysis:
    """What the trace says about the kernel: findings first, then per-site statistics."""

    findings: tuple[Finding, ...]
    sites: tuple[SiteStats, ...]  # one per memory-access site with records, in line order
    loads_per_element: dict[str, dict[str, float]]  # global input buffer -> min/max/mean
    global_bytes_read: int
    global_bytes_written: int

    def to_json(self, trace: Trace) -> dict[str, Any]:
        """The CLI's JSON object (plain Python types only)."""
        return {
            "complete": bool(trace.complete),
            "groups_traced": [[int(v) for v in g] for g in trace.groups_traced],
            "records": int(trace.records),
            "findings": [f.to_json() for f in self.findings],
            "sites": [s.to_json() for s in self.sites],
            "loads_per_element": {k: dict(v) for k, v in self.loads_per_element.items()},
            "dispatch_order": [[int(v) for v in g] for g in trace.dispatch_order],
        }


def analyse(trace: Trace, warp: int = 32, banks: int = 32) -> Analysis:
    """Analyse every record of ``trace``. ``warp`` is the number of consecutive local ids that
    execute together (a request), ``banks`` the number of 4-byte local memory banks."""
    if warp < 1 or banks < 1:
        raise ValueError("warp and banks must be positive")
    ctx = _Context(trace, warp, banks)
    units, oob_units, barrier_units = _split(ctx)
    findings = _overflow(ctx) + _not_traced(trace) + _out_of_bounds(ctx, oob_units)
    findings += _divergence(ctx, barrier_units)
    stats = _site_stats(ctx, units, oob_units)
    loads, read, written = _loads(ctx, units)
    findings += _races_and_uninitialised(ctx, units)
    findings += _coverage(ctx, units)
    findings.sort(
        key=lambda f: (_KIND_ORDER.get(f.kind, 9), f.line or 0, -1 if f.phase is None else f.phase)
    )
    return Analysis(tuple(findings), stats, loads, read, written)


# --------------------------------------------------------------------------- the records


class _Context:
    """Per-work-item tables the analyses share (small: one entry per traced work-item)."""

    def __init__(self, trace: Trace, warp: int, banks: int):
        self.trace = trace
        self.warp = warp
        self.banks = banks
        self.n = trace.records
        self.W = int(trace.wi_count.size)
        self.nsites = max(1, len(trace.sites))
        gl = np.asarray(trace.group_linear(), dtype=np.int64).reshape(-1)
        ll = np.asarray(trace.local_linear(), dtype=np.int64).reshape(-1)
        groups, inv = np.unique(gl, return_inverse=True)
        self.gdense = inv.reshape(-1).astype(np.int64)  # dense group id per work-item
        self.ngroups = max(1, groups.size)
        self.group_sorted = bool(np.all(self.gdense[1:] >= self.gdense[:-1]))
        group_size = int(np.prod(trace.local_size)) if trace.local_size else 1
        self.group_size = group_size
        self.llinear = ll
        self.local_scale = 1  # > 1: the first group's local accesses stand for every group's
        self.width = max(1, min(warp, group_size))  # lanes of one request
        self.nwarps = max(1, -(-group_size // warp))
        self.lane = ll % warp
        self.wglob = self.gdense * self.nwarps + ll // warp
        cap = trace.extra.get("capacity_per_wi")
        if cap is not None and np.size(cap) == self.W:  # regions may differ in size
            self.overflowed = np.flatnonzero(trace.wi_count > np.asarray(cap))
        else:
            self.overflowed = np.asarray(trace.overflowed)
        self.ok_wi = np.ones(self.W, dtype=bool)
        self.ok_wi[self.overflowed] = False
        self.safe_phase = self._safe_phase()
        self.phase_row: np.ndarray | None = None  # phases of every work-item, when all alike

    def _safe_phase(self) -> np.ndarray | None:
        """Per group: phases below this are fully recorded by every work-item of the group.
        An overflowed work-item lost its later records, so another work-item's read in or after
        its last recorded phase may miss a write that really happened."""
        if self.overflowed.size == 0:
            return None
        safe = np.full(self.ngroups, _I64_MAX, dtype=np.int64)
        t = self.trace
        last = np.searchsorted(t.wi, self.overflowed, side="right") - 1
        has = (last >= 0) & (t.wi[np.maximum(last, 0)] == self.overflowed)
        phase = np.where(has, t.phase[np.maximum(last, 0)], 0).astype(np.int64)
        np.minimum.at(safe, self.gdense[self.overflowed], phase)
        return safe

    def label(self, w: int) -> tuple[int, ...]:
        """A work-item as [gx, gy, gz, lx, ly, lz]."""
        g = (list(self.trace.wi_group[w]) + [0, 0, 0])[:3]
        lo = (list(self.trace.wi_local[w]) + [0, 0, 0])[:3]
        return tuple(int(v) for v in g + lo)

    def labels(self, wis: Any, limit: int = EXAMPLES) -> tuple[tuple[int, ...], ...]:
        seen = list(dict.fromkeys(int(w) for w in wis))[:limit]
        return tuple(self.label(w) for w in seen)

    def space(self, buffer: int) -> int:
        return self.trace.buffers[buffer].space if buffer >= 0 else NO_SPACE


class _Unit:
    """The records of one site on one buffer, in the trace's (work-item, sequence) order.

    Either ``idx`` lists the record positions, or (when every work-item ran the same sequence)
    ``cols`` lists the site's positions within each work-item's ``L`` records."""

    def __init__(
        self,
        ctx: _Context,
        site: int,
        buffer: int,
        wi: np.ndarray,
        off: np.ndarray | None,
        size: int | np.ndarray,
        *,
        idx: np.ndarray | None = None,
        cols: np.ndarray | None = None,
        per_wi: int | None = None,
        nwi: int | None = None,
        scale: int = 1,
    ):
        self.ctx = ctx
        self.site = site
        s = ctx.trace.sites[site]
        self.op = s.op
        self.line = s.line
        self.buffer = buffer
        self.wi = wi
        self.off = off
        self.size = size
        self.idx = idx
        self.cols = cols
        self.count = per_wi  # records per work-item when it is the same for all
        self.nwi = ctx.W if nwi is None else nwi  # uniform: the unit covers work-items < nwi
        self.scale = scale  # each record stands for this many (one per work-group)
        self._phase: np.ndarray | None = None
        self._maxoff: int | None = None
        self._words: list[tuple[np.ndarray | None, np.ndarray]] | None = None

    @property
    def m(self) -> int:
        return int(self.wi.size)

    def positions(self, pos: np.ndarray) -> np.ndarray:
        """Trace record indices of the unit's records ``pos``."""
        if self.idx is not None:
            return self.idx[pos]
        k = self.cols.size
        return (pos // k) * (self.ctx.n // self.ctx.W) + self.cols[pos % k]

    def gather(self, arr: np.ndarray) -> np.ndarray:
        if self.idx is not None:
            return arr[self.idx]
        rows = arr.reshape(self.ctx.W, -1)[: self.nwi]
        return np.take(rows, self.cols, axis=1).reshape(-1)

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
        if self._phase is None:
            row = self.ctx.phase_row
            if self.cols is not None and row is not None:
                self._phase = np.tile(row[self.cols], self.nwi)
            else:
                self._phase = self.gather(self.ctx.trace.phase)
        return self._phase

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

    def words(self) -> list[tuple[np.ndarray | None, np.ndarray]]:
        """The 4-byte words the records cover (see ``_cells``), kept: several analyses use
        them."""
        if self._words is None:
            self._words = list(_cells(self.off, self.size, 4, self.max_end // 4 < _I32_MAX))
        return self._words

    def subset(self, pos: np.ndarray | slice) -> _Unit:
        if isinstance(pos, slice):
            pos = np.arange(self.m)[pos]
        sub = _Unit(
            self.ctx,
            self.site,
            self.buffer,
            self.wi[pos],
            None if self.off is None else self.off[pos],
            self.size[pos] if isinstance(self.size, np.ndarray) else self.size,
            idx=self.positions(pos),
        )
        if self._phase is not None:
            sub._phase = self._phase[pos]
        return sub


def _split(ctx: _Context) -> tuple[list[_Unit], list[_Unit], list[_Unit]]:
    """Memory units (in-bounds records), out-of-bounds units and barrier units."""
    t = ctx.trace
    mem: list[_Unit] = []
    oob: list[_Unit] = []
    bars: list[_Unit] = []
    W, n = ctx.W, ctx.n
    if n == 0 or W == 0:
        return mem, oob, bars
    L = n // W
    uniform = (
        n == W * L
        and ctx.overflowed.size == 0
        and bool((t.wi_count == L).all())
        and bool((np.asarray(t.kept) == L).all())
    )
    if uniform:
        # Every work-item made the same sequence of accesses (no divergent control flow): a
        # site's records are the same columns of the (W, L) record matrix. Checked on the
        # packed words, all fields but the phase at once.
        rows = t.word.reshape(W, L)
        same_phase = _rows_equal(rows)
        uniform = same_phase or _rows_equal(rows, mask=~np.uint32(PHASE_MASK << PHASE_SHIFT))
        uniform = uniform and not bool(word_oob(rows[0]).any())
    if uniform:
        row = t.word[:L]
        if same_phase:
            ctx.phase_row = word_phase(row)
        row_site, row_buf, row_size = word_site(row), word_buffer(row), word_size(row)
        combos = []
        for sid in np.unique(row_site).tolist():
            cols = np.flatnonzero(row_site == sid)
            op = t.sites[sid].op
            if op == BARRIER:
                bars.append(
                    _Unit(
                        ctx,
                        sid,
                        -1,
                        np.repeat(np.arange(W, dtype=np.int32), cols.size),
                        None,
                        0,
                        cols=cols,
                        per_wi=int(cols.size),
                    )
                )
                continue
            if op not in (READ, WRITE, RMW, ATOMIC):
                continue
            pairs = {(int(b), int(s)) for b, s in zip(row_buf[cols], row_size[cols], strict=True)}
            for b, s in sorted(pairs):
                if b >= 0:
                    combos.append((sid, b, s, cols[(row_buf[cols] == b) & (row_size[cols] == s)]))
        local = [c for _, b, _, c in combos if t.buffers[b].space == LOCAL]
        if local and _groups_alike(ctx, L, np.sort(np.concatenate(local))):
            ctx.local_scale = ctx.ngroups
        offsets = t.offset.reshape(W, L)
        for sid, b, s, c in combos:
            nwi, scale = W, 1
            if t.buffers[b].space == LOCAL and ctx.local_scale > 1:
                nwi, scale = ctx.group_size, ctx.local_scale  # the first group stands for all
            wi = np.repeat(np.arange(nwi, dtype=np.int32), c.size)
            off = np.take(offsets[:nwi], c, axis=1).reshape(-1)
            mem.append(
                _Unit(ctx, sid, b, wi, off, s, cols=c, per_wi=int(c.size), nwi=nwi, scale=scale)
            )
        return mem, oob, bars

    counts = np.bincount(t.site, minlength=len(t.sites))
    any_oob = bool(t.oob.any())
    one_size = int(t.size[0]) if _rows_equal(t.size.reshape(-1, 1)) else None
    for sid in np.flatnonzero(counts).tolist():
        s = t.sites[sid]
        if s.op not in (READ, WRITE, RMW, ATOMIC, BARRIER):
            continue
        idx = np.flatnonzero(t.site == sid)
        wi = t.wi[idx]
        if s.op == BARRIER:
            bars.append(_Unit(ctx, sid, -1, wi, None, 0, idx=idx))
            continue
        size = t.size[idx] if one_size is None else one_size
        whole = _Unit(ctx, sid, s.buffer, wi, t.offset[idx], size, idx=idx)
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
                    oob.append(o)
                    u = u.subset(np.flatnonzero(~bad))
            if b < 0 or u.m == 0:
                continue
            u.buffer = b
            if isinstance(u.size, np.ndarray) and bool((u.size == u.size[0]).all()):
                u.size = int(u.size[0])
            mem.append(u)
    return mem, oob, bars


def _groups_alike(ctx: _Context, L: int, cols: np.ndarray) -> bool:
    """Whether every work-group made exactly the same accesses at the record columns ``cols``
    (local memory is indexed by local ids and loop counters, rarely by the group id). Then the
    first group stands for all of them in the local-memory analyses, which are per group.
    Needs work-items stored group by group, in local-id order, and whole groups traced."""
    G, gs = ctx.ngroups, ctx.group_size
    n_wi = ctx.W
    whole_groups = n_wi == gs * G
    if G < 2 or ctx.phase_row is None or not whole_groups:
        return False
    if not np.array_equal(ctx.llinear, np.arange(ctx.W) % gs):
        return False
    blocks = ctx.gdense.reshape(G, gs)
    if not bool((blocks == blocks[:, :1]).all()):
        return False
    off3 = ctx.trace.offset.reshape(G, gs, L)
    first = np.take(off3[0], cols, axis=1)
    step = max(1, (1 << 20) // max(1, first.size))
    return all(
        bool((np.take(off3[g : g + step], cols, axis=2) == first).all()) for g in range(1, G, step)
    )


def _rows_equal(mat: np.ndarray, block: int = 1 << 20, mask: Any = None) -> bool:
    """Whether every row of ``mat`` (bitwise-and ``mask``, when given) equals its first (in
    blocks, to stay in cache)."""
    rows = max(1, block // max(1, mat.shape[1]))
    if mask is None:
        first = mat[0]
        return all(bool((mat[i : i + rows] == first).all()) for i in range(0, mat.shape[0], rows))
    first = mat[0] & mask
    return all(
        bool(((mat[i : i + rows] & mask) == first).all()) for i in range(0, mat.shape[0], rows)
    )


def _cells(
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


# --------------------------------------------------------------------- per-site statistics


def _request_layout(ctx: _Context, u: _Unit) -> tuple[np.ndarray, int]:
    """Each record's place in a dense (request, lane) matrix, as ``request * width + lane``,
    and the number of requests. A request is one warp executing the site once: the k-th
    execution by each of its work-items (records are in sequence order, so a record's
    occurrence is its position among its work-item's records of the unit)."""
    W = ctx.W
    if u.count is not None:
        cnt = np.zeros(W, dtype=np.int64)
        cnt[: u.nwi] = u.count
    else:
        cnt = np.bincount(u.wi, minlength=W).astype(np.int64)
    start = np.cumsum(cnt) - cnt
    most = np.zeros(ctx.ngroups * ctx.nwarps, dtype=np.int64)
    np.maximum.at(most, ctx.wglob, cnt)
    base = np.cumsum(most) - most
    per_wi = (base[ctx.wglob] - start) * ctx.width + ctx.lane
    if u.cols is not None:  # uniform: start = wi * count, so flat = table[wi] + position*width
        per_wi += np.arange(W, dtype=np.int64) * (u.count * ctx.width)
        flat = u.per_wi(per_wi, np.arange(u.count, dtype=np.int64) * ctx.width)
    else:
        flat = per_wi[u.wi]
        flat += np.arange(u.m, dtype=np.int64) * ctx.width
    return flat, int(most.sum())


def _request_matrix(
    ctx: _Context,
    flat: np.ndarray,
    requests: int,
    cells: list[tuple[np.ndarray | None, np.ndarray]],
    top: int,
) -> tuple[np.ndarray, int]:
    """Rows of cells per request, each row sorted, empty places holding a sentinel."""
    span = len(cells)
    dtype = np.int32 if top < _I32_MAX else np.int64
    sent = _I32_MAX if dtype == np.int32 else _I64_MAX
    mat = np.full(requests * ctx.width * span, sent, dtype=dtype)
    for j, (sel, c) in enumerate(cells):
        pos = flat if sel is None else flat[sel]
        if span == 1:
            mat[pos] = c
        else:
            mat[pos * span + j] = c
    mat = mat.reshape(requests, ctx.width * span)
    mat.sort(axis=1)
    return mat, sent


def _sectors(ctx: _Context, u: _Unit, flat: np.ndarray, requests: int) -> int:
    """Distinct (request, 32-byte sector) pairs."""
    cells = list(_cells(u.off, u.size, 32))
    mat, sent = _request_matrix(ctx, flat, requests, cells, u.max_end // 32 + 1)
    if mat.shape[1] == 1:
        return requests
    changes = int(np.count_nonzero(mat[:, 1:] != mat[:, :-1]))
    padded = int(np.count_nonzero(mat[:, -1] == sent))  # rows with one change into padding
    return requests + changes - padded


def _bank_degrees(ctx: _Context, u: _Unit, flat: np.ndarray, requests: int) -> np.ndarray:
    """Per request: the most distinct words that fall in one bank (1 = no conflict; the same
    word read by several lanes is a broadcast and counts once)."""
    banks = ctx.banks
    hi_bits = max(1, int((u.max_end // 4) // banks).bit_length())
    narrow = (banks << hi_bits) < _I32_MAX
    pow2 = banks & (banks - 1) == 0
    keyed = []
    for sel, w in u.words():
        w = w if narrow else w.astype(np.int64)
        if pow2:
            key = w & (banks - 1)  # the bank
            row = w >> (banks.bit_length() - 1)  # which word of that bank
        else:
            row, key = np.divmod(w, banks)
        key <<= hi_bits
        key |= row
        keyed.append((sel, key))
    mat, sent = _request_matrix(ctx, flat, requests, keyed, banks << hi_bits)
    R, C = mat.shape
    degree = np.ones(R, dtype=np.int64)
    if C == 1:
        return degree
    # Rows are sorted by (bank, word): a conflict shows as two neighbours in the same bank
    # with different words, i.e. 0 < a ^ b < 2**hi_bits. Most requests have none.
    x = mat[:, 1:] ^ mat[:, :-1]
    x -= 1
    unsigned = np.uint32 if mat.dtype == np.int32 else np.uint64
    rows = np.flatnonzero((x.view(unsigned) < (1 << hi_bits) - 1).any(axis=1))
    if rows.size:
        degree[rows] = _conflict_degrees(mat[rows], sent, hi_bits)
    return degree


def _conflict_degrees(mat: np.ndarray, sent: int, hi_bits: int) -> np.ndarray:
    """Per row of sorted (bank, word) keys: the most distinct words in one bank."""
    R, C = mat.shape
    distinct = np.empty((R, C), dtype=bool)
    distinct[:, 0] = True  # every request has an access, and it sorts first
    np.not_equal(mat[:, 1:], mat[:, :-1], out=distinct[:, 1:])
    distinct[:, 1:] &= mat[:, 1:] != sent
    bank = mat >> hi_bits
    new_bank = np.empty((R, C), dtype=bool)
    new_bank[:, 0] = True
    np.not_equal(bank[:, 1:], bank[:, :-1], out=new_bank[:, 1:])
    ctype = np.int16 if C < 32767 else np.int64
    upto = np.cumsum(distinct, axis=1, dtype=ctype)  # distinct words so far in the row
    before = upto - distinct
    before *= new_bank  # the count where each bank's run starts...
    np.maximum.accumulate(before, axis=1, out=before)  # ...carried along the run
    upto -= before
    return upto.max(axis=1).astype(np.int64)


def _site_stats(
    ctx: _Context,
    units: list[_Unit],
    oob_units: list[_Unit],
) -> tuple[SiteStats, ...]:
    t = ctx.trace
    acc: dict[int, dict[str, Any]] = {}

    def entry(u: _Unit) -> dict[str, Any]:
        # sectors / greq: distinct sectors over global requests; deg / lreq: bank degrees
        # summed over local requests
        return acc.setdefault(
            u.site,
            dict(
                buffer=u.buffer,
                accesses=0,
                requests=0,
                sectors=0,
                greq=0,
                deg=0.0,
                lreq=0,
                worst=None,
            ),
        )

    for u in oob_units:
        entry(u)  # a site whose every access was out of bounds still gets a row
    for u in units:
        a = entry(u)
        a["accesses"] += u.m * u.scale
        flat, requests = _request_layout(ctx, u)
        a["requests"] += requests * u.scale
        space = ctx.space(u.buffer)
        if space == GLOBAL:
            a["sectors"] += _sectors(ctx, u, flat, requests) * u.scale
            a["greq"] += requests * u.scale
        elif space == LOCAL:
            deg = _bank_degrees(ctx, u, flat, requests)
            a["deg"] += float(deg.sum()) * u.scale
            a["lreq"] += requests * u.scale
            worst = int(deg.max())
            a["worst"] = worst if a["worst"] is None else max(a["worst"], worst)
    out = []
    for sid, a in acc.items():
        s = t.sites[sid]
        b = s.buffer if s.buffer >= 0 else a["buffer"]
        space = s.space if s.space != NO_SPACE else ctx.space(a["buffer"])
        out.append(
            (
                s.line,
                sid,
                SiteStats(
                    line=s.line,
                    buffer=t.buffers[b].name if b >= 0 else "?",
                    space=SPACE_NAMES.get(space, "none"),
                    op=OP_NAMES[s.op],
                    accesses=a["accesses"],
                    requests=a["requests"],
                    sectors_per_request=round(a["sectors"] / a["greq"], 4) if a["greq"] else None,
                    bank_conflict_degree=round(a["deg"] / a["lreq"], 4) if a["lreq"] else None,
                    bank_conflict_worst=a["worst"],
                    text=s.text,
                ),
            )
        )
    return tuple(st for _, _, st in sorted(out, key=lambda x: x[:2]))


def _loads(ctx: _Context, units: list[_Unit]) -> tuple[dict[str, dict[str, float]], int, int]:
    """Loads per element of every global input buffer, and global bytes read and written."""
    t = ctx.trace
    counts: dict[int, np.ndarray] = {
        b: np.zeros(info.length, dtype=np.int64)
        for b, info in enumerate(t.buffers)
        if info.space == GLOBAL and not (t.output_role is not None and info.role == t.output_role)
    }
    read = written = 0
    for u in units:
        if ctx.space(u.buffer) != GLOBAL:
            continue
        nbytes = int(u.size.sum()) if isinstance(u.size, np.ndarray) else u.m * int(u.size)
        if u.op in (READ, RMW, ATOMIC):
            read += nbytes
        if u.op in _WRITES:
            written += nbytes
        if u.op in _READS and u.buffer in counts:
            c = counts[u.buffer]
            for _, e in _cells(u.off, u.size, t.buffers[u.buffer].elem_size):
                c += np.bincount(e, minlength=c.size)[: c.size]
    loads = {}
    for b, c in counts.items():
        loads[t.buffers[b].name] = (
            {"min": int(c.min()), "max": int(c.max()), "mean": round(float(c.mean()), 4)}
            if c.size
            else {"min": 0, "max": 0, "mean": 0.0}
        )
    return loads, read, written


# -------------------------------------------------------------------------- simple findings


def _overflow(ctx: _Context) -> list[Finding]:
    over = ctx.overflowed
    if over.size == 0:
        return []
    t = ctx.trace
    most = int(t.wi_count[over].max())
    return [
        Finding(
            kind="overflow",
            line=None,
            phase=None,
            buffer=None,
            work_items=ctx.labels(over),
            count=int(over.size),
            message=(
                f"{over.size} work-item(s) tried to record more than the {t.capacity} records "
                f"each can keep (the most tried {most}): the trace is incomplete after that "
                f"point, so accesses, and findings about them, are missing. Raise the trace "
                f"capacity to at least {most} records per work-item, or trace fewer "
                f"work-groups."
            ),
        )
    ]


def _not_traced(trace: Trace) -> list[Finding]:
    return [
        Finding(
            kind="not-traced",
            line=nt.line,
            phase=None,
            buffer=None,
            work_items=(),
            count=1,
            message=f"line {nt.line} was not traced: {nt.reason}",
        )
        for nt in trace.not_traced
    ]


def _out_of_bounds(ctx: _Context, oob_units: list[_Unit]) -> list[Finding]:
    t = ctx.trace
    merged: dict[tuple[int, int], list[_Unit]] = {}
    for u in oob_units:
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
        verb = _VERB.get(s.op, "accesses")
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


def _divergence(ctx: _Context, bars: list[_Unit]) -> list[Finding]:
    """Groups whose (fully recorded) work-items passed different barriers."""
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
    others = (
        f" {bad_groups.size - 1} other work-group(s) do the same." if bad_groups.size > 1 else ""
    )
    msg = (
        f"Work-group ({gid[0]}, {gid[1]}, {gid[2]}): {desc}, at the barrier(s) on line(s) "
        f"{where}. Every work-item of a group must reach the same barriers, or the kernel "
        f"may hang or read stale data: move the barrier out of the condition.{others}"
    )
    return [
        Finding(
            kind="barrier-divergence",
            line=at[0] if at else None,
            phase=None,
            buffer=None,
            work_items=ctx.labels(examples),
            count=int(bad_groups.size),
            message=msg,
        )
    ]


def _coverage(ctx: _Context, units: list[_Unit]) -> list[Finding]:
    """Elements of the output written by no work-item, or by several."""
    t = ctx.trace
    gx, gy, gz = t.num_groups
    if t.output_role is None or len(t.groups_traced) != gx * gy * gz:
        return []
    outs = [
        b for b, info in enumerate(t.buffers) if info.role == t.output_role and info.space == GLOBAL
    ]
    findings = []
    for b in outs:
        info = t.buffers[b]
        writes = [u for u in units if u.buffer == b and u.op in _WRITES]
        written = np.zeros(info.length, dtype=bool)
        rep = np.full(info.length, -1, dtype=np.int64)  # a plain writer of each element
        for u in writes:
            for sel, e in _cells(u.off, u.size, info.elem_size):
                written[e] = True
                if u.op != ATOMIC:  # atomics from many work-items are meant to share
                    rep[e] = u.wi if sel is None else u.wi[sel]
        other = np.full(info.length, -1, dtype=np.int64)  # a second one, where there is one
        for u in writes:
            if u.op == ATOMIC:
                continue
            for sel, e in _cells(u.off, u.size, info.elem_size):
                w = u.wi if sel is None else u.wi[sel]
                differ = rep[e] != w
                if differ.any():
                    other[e[differ]] = w[differ]
        # Gaps are only certain when nothing is missing from the trace.
        if ctx.overflowed.size == 0 and not t.not_traced:
            never = np.flatnonzero(~written)
            if never.size:
                shown = never[:EXAMPLES].tolist()
                names = ", ".join(f"{info.name}[{e}]" for e in shown)
                findings.append(
                    Finding(
                        kind="coverage",
                        line=None,
                        phase=None,
                        buffer=info.name,
                        work_items=(),
                        count=int(never.size),
                        elements=tuple(shown),
                        message=(
                            f"{never.size} of {info.length} elements of {info.name} were never "
                            f"written (e.g. {names}): check the global size and the index "
                            "the kernel writes."
                        ),
                    )
                )
        several = np.flatnonzero(other >= 0)
        if several.size:
            shown = several[:EXAMPLES].tolist()
            e0 = shown[0]
            wis = [int(rep[e0]), int(other[e0])] + [int(rep[e]) for e in shown[1:]]
            a, c = ctx.label(int(rep[e0])), ctx.label(int(other[e0]))
            names = ", ".join(f"{info.name}[{e}]" for e in shown)
            line = next((u.line for u in writes), None)
            findings.append(
                Finding(
                    kind="coverage",
                    line=line,
                    phase=None,
                    buffer=info.name,
                    work_items=ctx.labels(wis),
                    count=int(several.size),
                    elements=tuple(shown),
                    message=(
                        f"{several.size} elements of {info.name} were written by several "
                        f"work-items (e.g. {names}; {info.name}[{e0}] by {_wi(a)} and "
                        f"{_wi(c)}): each element should have exactly one writer, or the "
                        "result depends on which one wrote last."
                    ),
                )
            )
    return findings


def _wi(label: tuple[int, ...]) -> str:
    return f"group ({label[0]}, {label[1]}, {label[2]}) local ({label[3]}, {label[4]}, {label[5]})"


# -------------------------------------------------------- races and uninitialised reads


@dataclass
class _Job:
    """A unit and how to get its keys: an iterator of (records or None for all, keys)."""

    unit: _Unit
    key_fn: Callable[[], Iterator[tuple[np.ndarray | None, np.ndarray]]]


def _scan(
    ctx: _Context,
    jobs: list[_Job],
    size: int,
    actor: np.ndarray | None,
    on_race: Callable[[_Unit, np.ndarray, np.ndarray, np.ndarray], None],
    on_uninit: Callable[[_Unit, np.ndarray, np.ndarray], None] | None = None,
    layout: tuple[int, int, int] | None = None,
) -> tuple[np.ndarray, np.ndarray | None]:
    """Check every access of ``jobs`` against the writes to the same key.

    A race: a key written (plain write or rmw) by one actor and accessed by another, or
    atomically updated by one actor and accessed non-atomically by another. ``actor`` maps a
    work-item to its actor (its work-group, for races between groups); None means the
    work-item itself. ``on_race`` gets the unit, a racing record per key, the keys and the
    ``code`` (work-item * nsites + site) of a write it races with (see ``_attribute``).

    With ``on_uninit`` (keys laid out as (groups, phases, words) in ``layout``), a read
    whose key no one wrote in an earlier phase, and which only the reader itself wrote in this
    phase, after the read, or not at all, is uninitialised. Returns the status of each key
    (``_PW | _AT | _INIT`` bits) and which keys race (None if none)."""
    wdtype = np.int32 if ctx.W < _I32_MAX else np.int64
    rep: dict[bool, np.ndarray] = {}  # atomic? -> a work-item that wrote the key, -1 if none
    other: dict[bool, np.ndarray] = {}  # a writer of another actor than rep's, where one is
    writers = [j for j in jobs if j.unit.op in _WRITES]
    for job in writers:
        atomic = job.unit.op == ATOMIC
        table = rep.get(atomic)
        if table is None:
            table = rep[atomic] = np.full(size, -1, dtype=wdtype)
        wi = job.unit.wi
        for sel, keys in job.key_fn():
            table[keys] = wi if sel is None else wi[sel]
    first_seq = np.full(size, _I32_MAX, dtype=np.int32) if on_uninit else None
    for job in writers:
        u = job.unit
        atomic = u.op == ATOMIC
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
            if first_seq is not None:
                np.minimum.at(first_seq, keys, seq if sel is None else seq[sel])
    status = np.zeros(size, dtype=np.int8)
    for atomic, table in rep.items():
        status |= (table >= 0).view(np.int8) * np.int8(_AT if atomic else _PW)
    if layout is not None and layout[1] > 1:
        nb, P, LW = layout
        s3 = status.reshape(nb, P, LW)
        earlier = np.logical_or.accumulate(s3[:, :-1, :] != 0, axis=1)
        s3[:, 1:, :] |= earlier.view(np.int8) * np.int8(_INIT)
    flagged: list[tuple[_Unit, np.ndarray, np.ndarray]] = []
    for job in jobs:
        u = job.unit
        plain = u.op != ATOMIC
        tables = [
            (rep[a], other.get(a)) for a in ((False, True) if plain else (False,)) if a in rep
        ]
        reads = on_uninit is not None and u.op in _READS
        if not tables and not reads:
            continue
        bits = (_PW | _AT) if plain else _PW
        mask = bits | (_INIT if reads else 0)
        normal = _INIT if reads else 0
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
                racing = np.flatnonzero(racing)
                if racing.size:
                    flagged.append((u, pos[racing], k[racing]))
            if reads:
                cand = np.flatnonzero((sl & _INIT) == 0)
                if cand.size:
                    kc = k[cand]
                    only_self = np.ones(cand.size, dtype=bool)  # no one else wrote it
                    for a, table in rep.items():
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
    return status, _attribute(ctx, writers, flagged, size, actor, on_race)


def _attribute(
    ctx: _Context,
    writers: list[_Job],
    flagged: list[tuple[_Unit, np.ndarray, np.ndarray]],
    size: int,
    actor: np.ndarray | None,
    on_race: Callable[[_Unit, np.ndarray, np.ndarray, np.ndarray], None],
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
            if wu.op == ATOMIC and u.op == ATOMIC:
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


class _Races:
    """Collects racing records into findings, one per (buffer, writing line, other line,
    phase). ``scope`` is "local" (local memory, within a group), "group" (global memory,
    within a group) or "grid" (global memory, between groups)."""

    def __init__(self, ctx: _Context, scope: str, scale: int = 1):
        self.ctx = ctx
        self.scope = scope
        self.scale = scale  # each racing key stands for this many (one per work-group)
        self.found: dict[tuple[int, int, int, int | None], dict[str, Any]] = {}
        self.pending: dict[tuple[int, int, int, int | None], list[np.ndarray]] = {}

    def add(self, u: _Unit, pos: np.ndarray, keys: np.ndarray, partner: np.ndarray) -> None:
        ctx = self.ctx
        ns = ctx.nsites
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
                entry = self.found[key] = {
                    "wop": ws.op,
                    "oop": u.op,
                    "count": 0,
                    "wis": [],
                    "elements": [],
                }
            few = slice(0, EXAMPLES) if sel is None else sel[:EXAMPLES]
            if len(entry["wis"]) < EXAMPLES:
                for wp, wo in zip(
                    (partner[few] // ns).tolist(), u.wi[pos[few]].tolist(), strict=True
                ):
                    entry["wis"] += [wp, wo]
            if len(entry["elements"]) < EXAMPLES:
                es = ctx.trace.buffers[u.buffer].elem_size
                entry["elements"] += (u.off[pos[few]] // es).tolist()
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
            self.found[key]["count"] += distinct * self.scale
        self.pending.clear()

    def findings(self) -> list[Finding]:
        # The same pair of lines racing in many phases (a loop around the racy code) is one
        # problem: one finding, at its first phase, counting every phase.
        merged: dict[tuple[int, int, int], tuple[int | None, dict[str, Any], int]] = {}
        for (b, wline, oline, phase), e in sorted(
            self.found.items(), key=lambda item: (item[0][:3], item[0][3] or 0)
        ):
            key = (b, wline, oline)
            if key in merged:
                first, entry, phases = merged[key]
                entry["count"] += e["count"]
                merged[key] = (first, entry, phases + 1)
            else:
                merged[key] = (phase, dict(e), 1)
        out = []
        for (b, wline, oline), (phase, e, phases) in merged.items():
            name = self.ctx.trace.buffers[b].name
            where = f"phase {phase}" if phases == 1 else f"phase {phase} and {phases - 1} later"
            where += "" if phases <= 2 else " phases"
            wverb, overb = _VERB[e["wop"]], _VERB[e["oop"]]
            local = self.scope == "local"
            fence = "CLK_LOCAL_MEM_FENCE" if local else "CLK_GLOBAL_MEM_FENCE"
            if self.scope == "grid":
                if wline == oline:
                    what = (
                        f"line {wline} {wverb} {name}[] and, on that same line, work-items of "
                        f"other work-groups {overb.replace('updates', 'update')} the same "
                        "elements"
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
            elif wline == oline:
                msg = (
                    f"Race on {name} in {where}: line {wline} {wverb} {name}[] while "
                    f"other work-items {_plural(overb)} the same elements on that same line, "
                    "with no barrier between (like p[0] += p[32] run by many work-items at "
                    f"once). Put a barrier({fence}) between the steps, or use an atomic."
                )
            else:
                a, c = sorted((wline, oline))
                msg = (
                    f"Race on {name} in {where}: line {wline} {wverb} it and line "
                    f"{oline} {overb} it, by different work-items, with no barrier between. "
                    f"A barrier({fence}) is missing between line {a} and line {c}."
                )
            out.append(
                Finding(
                    kind="race",
                    line=min(wline, oline),
                    phase=phase,
                    buffer=name,
                    work_items=self.ctx.labels(e["wis"]),
                    count=e["count"],
                    message=msg,
                    elements=tuple(dict.fromkeys(e["elements"]))[:EXAMPLES],
                )
            )
        return out


def _plural(verb: str) -> str:
    """'reads' -> 'read', 'atomically updates' -> 'atomically update'."""
    return verb[:-1] if verb.endswith("s") else verb


class _Uninit:
    """Collects reads of local memory that no work-item had written, one finding per site."""

    def __init__(self, ctx: _Context, scale: int = 1):
        self.ctx = ctx
        self.scale = scale  # each read stands for this many (one per work-group)
        self.found: dict[int, dict[str, Any]] = {}

    def add(self, u: _Unit, pos: np.ndarray, keys: np.ndarray) -> None:
        ctx = self.ctx
        phase = u.phase[pos]
        if ctx.safe_phase is not None:
            ok = phase < ctx.safe_phase[ctx.gdense[u.wi[pos]]]
            pos, phase = pos[ok], phase[ok]
            if pos.size == 0:
                return
        e = self.found.setdefault(
            u.site, {"buffer": u.buffer, "count": 0, "phase": None, "wis": [], "elements": []}
        )
        e["count"] += int(pos.size) * self.scale
        p = int(phase.min())
        e["phase"] = p if e["phase"] is None else min(e["phase"], p)
        if len(e["wis"]) < EXAMPLES:
            e["wis"] += u.wi[pos[:EXAMPLES]].tolist()
            es = ctx.trace.buffers[u.buffer].elem_size
            e["elements"] += (u.off[pos[:EXAMPLES]] // es).tolist()

    def findings(self) -> list[Finding]:
        out = []
        for sid, e in self.found.items():
            s = self.ctx.trace.sites[sid]
            name = self.ctx.trace.buffers[e["buffer"]].name
            out.append(
                Finding(
                    kind="uninitialized",
                    line=s.line,
                    phase=e["phase"],
                    buffer=name,
                    work_items=self.ctx.labels(e["wis"]),
                    count=e["count"],
                    elements=tuple(dict.fromkeys(e["elements"]))[:EXAMPLES],
                    message=(
                        f"line {s.line} reads {name}[] before any work-item wrote it (phase "
                        f"{e['phase']}): initialise it first (and add a barrier)"
                    ),
                )
            )
        return out


def _local_keys(
    u: _Unit,
    start: np.ndarray,
    LW: int,
) -> Iterator[tuple[np.ndarray | None, np.ndarray]]:
    """Local keys: ((group - g0) * phases + phase) * words + the word's place, where
    ``start`` holds ((group - g0) * phases * words + the buffer's first word) per work-item."""
    if u.cols is not None and u.ctx.phase_row is not None:
        key = u.per_wi(start, u.ctx.phase_row[u.cols].astype(start.dtype) * LW)
    else:
        key = u.per_wi(start)
        key += u.phase.astype(start.dtype) * LW
    for sel, w in u.words():
        yield sel, (key + w if sel is None else key[sel] + w)


def _word_keys(u: _Unit) -> Iterator[tuple[np.ndarray | None, np.ndarray]]:
    yield from u.words()


def _phase_word_keys(
    u: _Unit,
    written: np.ndarray,
    rank: np.ndarray,
    p0: int,
    p1: int,
) -> Iterator[tuple[np.ndarray | None, np.ndarray]]:
    """Keys (written word, phase - p0) for the records on written words in phases p0..p1-1."""
    ph = u.phase
    inrange = None if p0 == 0 and p1 > int(ph.max()) else (ph >= p0) & (ph < p1)
    for sel, w in u.words():
        keep = written[w]
        if inrange is not None:
            keep &= inrange if sel is None else inrange[sel]
        k = np.flatnonzero(keep)
        pos = k if sel is None else sel[k]
        yield pos, rank[w[k]] * (p1 - p0) + (ph[pos] - p0)


def _groups_subset(ctx: _Context, u: _Unit, g0: int, g1: int) -> _Unit:
    if ctx.group_sorted:
        wlo, whi = np.searchsorted(ctx.gdense, [g0, g1])
        a, b = np.searchsorted(u.wi, [wlo, whi])
        return u.subset(slice(int(a), int(b)))
    gd = ctx.gdense[u.wi]
    return u.subset(np.flatnonzero((gd >= g0) & (gd < g1)))


def _words(length: int, elem_size: int) -> int:
    return -(-length * elem_size // 4)


def _races_and_uninitialised(ctx: _Context, units: list[_Unit]) -> list[Finding]:
    t = ctx.trace
    local = _Races(ctx, "local", ctx.local_scale)
    uninit = _Uninit(ctx, ctx.local_scale)
    lunits = [u for u in units if ctx.space(u.buffer) == LOCAL and u.m]
    if lunits:
        bases: dict[int, int] = {}
        LW = 0
        for b in sorted({u.buffer for u in lunits}):
            bases[b] = LW
            LW += _words(t.buffers[b].length, t.buffers[b].elem_size)
        P = max(int(u.phase.max()) for u in lunits) + 1
        G = ctx.ngroups if ctx.local_scale == 1 else 1  # else the first group stands for all
        step = max(1, _DENSE_LIMIT // max(1, P * LW))
        for g0 in range(0, G, step):
            g1 = min(G, g0 + step)
            size = (g1 - g0) * P * LW
            dtype = np.int32 if size < _I32_MAX else np.int64
            jobs = []
            group = ctx.gdense - g0 if ctx.local_scale == 1 else np.zeros(ctx.W, np.int64)
            for u in lunits:
                sub = u if (g0, g1) == (0, G) else _groups_subset(ctx, u, g0, g1)
                if sub.m:
                    start = (group * (P * LW) + bases[u.buffer]).astype(dtype)
                    jobs.append(_Job(sub, partial(_local_keys, sub, start, LW)))
            _scan(ctx, jobs, size, None, local.add, uninit.add, layout=(g1 - g0, P, LW))
            local.flush(size)

    grid = _Races(ctx, "grid")
    group = _Races(ctx, "group")
    written_bufs = sorted(
        {u.buffer for u in units if ctx.space(u.buffer) == GLOBAL and u.op in _WRITES}
    )
    for b in written_bufs:
        ub = [u for u in units if u.buffer == b and u.m]
        NW = _words(t.buffers[b].length, t.buffers[b].elem_size)
        status, between = _scan(
            ctx, [_Job(u, partial(_word_keys, u)) for u in ub], NW, ctx.gdense, grid.add
        )
        grid.flush(NW)
        # Within a group, look at the written words that do not already race between groups.
        written = status != 0
        if between is not None:
            written &= ~between
        rank = np.cumsum(written) - 1
        nwritten = int(rank[-1]) + 1 if rank.size else 0
        if nwritten == 0:
            continue
        Pb = max(int(u.phase.max()) for u in ub) + 1
        step = max(1, _DENSE_LIMIT // nwritten)
        for p0 in range(0, Pb, step):
            p1 = min(Pb, p0 + step)
            size = nwritten * (p1 - p0)
            jobs = [_Job(u, partial(_phase_word_keys, u, written, rank, p0, p1)) for u in ub]
            _scan(ctx, jobs, size, None, group.add)
            group.flush(size)
    return local.findings() + uninit.findings() + grid.findings() + group.findings()


# ------------------------------------------------------------------------------- report


def format_report(trace: Trace, analysis: Analysis) -> str:
    """A plain-text report: summary, findings, per-site table, loads per element."""
    gx, gy, gz = trace.num_groups
    total = gx * gy * gz
    state = "complete" if trace.complete else "INCOMPLETE"
    lines = [
        f"Trace: {trace.records:,} records from {len(trace.groups_traced)} of {total} "
        f"work-group(s) ({state}).",
        f"Global memory: {analysis.global_bytes_read:,} bytes read, "
        f"{analysis.global_bytes_written:,} bytes written.",
        "",
    ]
    if analysis.findings:
        lines.append(f"Findings ({len(analysis.findings)}):")
        for f in analysis.findings:
            where = f"line {f.line}" if f.line is not None else "kernel"
            phase = f", phase {f.phase}" if f.phase is not None else ""
            lines.append(f"  [{f.kind}] {where}{phase}: {f.message}")
            if f.work_items:
                shown = "; ".join("({},{},{})/({},{},{})".format(*w) for w in f.work_items)
                lines.append(f"      e.g. group/local {shown}  (count {f.count})")
    else:
        lines.append("Findings: none.")
    lines.append("")
    if analysis.sites:
        header = (
            "line",
            "buffer",
            "space",
            "op",
            "accesses",
            "requests",
            "sectors/req",
            "bank deg",
            "access",
        )
        rows = [header]
        for s in analysis.sites:
            rows.append(
                (
                    str(s.line),
                    s.buffer,
                    s.space,
                    s.op,
                    f"{s.accesses:,}",
                    f"{s.requests:,}",
                    "-" if s.sectors_per_request is None else f"{s.sectors_per_request:.2f}",
                    "-"
                    if s.bank_conflict_degree is None
                    else f"{s.bank_conflict_degree:.2f} (worst {s.bank_conflict_worst})",
                    s.text,
                )
            )
        widths = [max(len(r[i]) for r in rows) for i in range(len(header) - 1)]
        lines.append("Memory accesses by site:")
        for r in rows:
            cells = [
                r[i].rjust(widths[i]) if i in (0, 4, 5, 6) else r[i].ljust(widths[i])
                for i in range(len(widths))
            ]
            lines.append("  " + "  ".join(cells) + "  " + r[-1])
        lines.append("")
    if analysis.loads_per_element:
        lines.append("Loads per element (global inputs):")
        for name, v in analysis.loads_per_element.items():
            lines.append(f"  {name}: min {v['min']}, max {v['max']}, mean {v['mean']:g}")
    return "\n".join(lines).rstrip() + "\n"
