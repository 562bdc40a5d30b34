"""Per-site memory statistics from warp requests: 32-byte sectors per global request
(coalescing) and the bank-conflict degree of local requests.

A warp request (one warp executing one site once) is a row of a dense (request, lane) matrix;
sorting rows of ``warp`` entries is cheap and gives the distinct sectors and banks.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.trace.analysis.context import I32_MAX, I64_MAX, Context
from explorer.trace.analysis.units import Cells, Unit, Units, cells
from explorer.trace.recorded import GLOBAL, LOCAL, NO_SPACE, OP_NAMES, SPACE_NAMES, SiteStats

SECTOR = 32  # bytes of global memory moved at a time


def _request_layout(ctx: Context, u: Unit) -> tuple[np.ndarray, int]:
    """Each record's place in a dense (request, lane) matrix, as ``request * width + lane``,
    and the number of requests. A request is one warp executing the site once: the k-th
    execution by each of its work-items (records are in sequence order, so a record's
    occurrence is its position among its work-item's records of the unit) between the same
    two barriers. Lanes that reach a site a different number of times (an anti-diagonal
    sweep whose lanes join one at a time) are paired phase by phase, never across a barrier."""
    if u.count is None and u.m and np.any(u.phase != u.phase[0]):
        return _phased_layout(ctx, u)
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
    if u.cols is not None and u.count is not None:
        # uniform: start = wi * count, so flat = table[wi] + position * width
        per_wi += np.arange(W, dtype=np.int64) * (u.count * ctx.width)
        flat = u.per_wi(per_wi, np.arange(u.count, dtype=np.int64) * ctx.width)
    else:
        flat = per_wi[u.wi]
        flat += np.arange(u.m, dtype=np.int64) * ctx.width
    return flat, int(most.sum())


def _phased_layout(ctx: Context, u: Unit) -> tuple[np.ndarray, int]:
    """:func:`_request_layout` where phases differ: requests keyed by (warp, phase, k-th
    execution within that phase), numbered densely."""
    wi = np.asarray(u.wi, dtype=np.int64)
    phase = np.asarray(u.phase, dtype=np.int64)
    position = np.arange(wi.size, dtype=np.int64)
    run = wi * (int(phase.max()) + 1) + phase  # records are in (work-item, sequence) order
    starts = np.flatnonzero(np.r_[True, run[1:] != run[:-1]])
    occurrence = position - np.repeat(starts, np.diff(np.r_[starts, wi.size]))
    warp = ctx.wglob[wi].astype(np.int64)
    key = (warp * (int(phase.max()) + 1) + phase) * (int(occurrence.max()) + 1) + occurrence
    _, request = np.unique(key, return_inverse=True)
    flat = request.astype(np.int64) * ctx.width + ctx.lane[wi]
    return flat, int(request.max()) + 1 if request.size else 0


def _request_matrix(
    ctx: Context,
    flat: np.ndarray,
    requests: int,
    keyed: Cells,
    top: int,
    lanes: int | None = None,
    pieces: bool = False,
) -> tuple[np.ndarray, int]:
    """Rows of cells per request (or per ``lanes`` lanes of a request, when the hardware
    serves it in phases; or, with ``pieces``, per cell of the accesses: the j-th cell of
    every lane a row), each row sorted, empty places holding a sentinel."""
    span = len(keyed)
    lanes = ctx.width if lanes is None else lanes
    dtype = np.int32 if top < I32_MAX else np.int64
    sent = I32_MAX if dtype == np.int32 else I64_MAX
    flat_mat = np.full(requests * ctx.width * span, sent, dtype=dtype)
    width = ctx.width
    for j, (sel, c) in enumerate(keyed):
        pos = flat if sel is None else flat[sel]
        if span == 1:
            flat_mat[pos] = c
        elif pieces:
            flat_mat[((pos // width) * span + j) * width + pos % width] = c
        else:
            flat_mat[pos * span + j] = c
    if pieces:
        return np.sort(flat_mat.reshape(requests * span, width), axis=1), sent
    mat = flat_mat.reshape(requests * (ctx.width // lanes), lanes * span)
    mat.sort(axis=1)
    return mat, sent


def _sectors(ctx: Context, u: Unit, flat: np.ndarray, requests: int) -> int:
    """Distinct (request, 32-byte sector) pairs."""
    sectors = list(cells(u.off, u.size, 32))
    mat, sent = _request_matrix(ctx, flat, requests, sectors, u.max_end // 32 + 1)
    if mat.shape[1] == 1:
        return requests
    changes = int(np.count_nonzero(mat[:, 1:] != mat[:, :-1]))
    padded = int(np.count_nonzero(mat[:, -1] == sent))  # rows with one change into padding
    return requests + changes - padded


def _warps_in_order(ctx: Context) -> bool:
    """Whether work-item ``w`` is lane ``w % width`` of the ``w // width``-th warp: work-items
    stored warp by warp, every warp full (kept: several sites ask)."""
    known = ctx.memo.get("warps_in_order")
    if isinstance(known, bool):
        return known
    W, width = ctx.W, ctx.width
    ids = np.arange(W, dtype=np.int64)
    ordered = (
        W % width == 0
        and np.array_equal(ctx.wglob, ids // width)
        and np.array_equal(ctx.lane, ids % width)
    )
    ctx.memo["warps_in_order"] = ordered
    return ordered


def _warp_sectors(ctx: Context, u: Unit) -> tuple[int, int] | None:
    """:func:`_request_layout` and :func:`_sectors` at once for a uniform unit whose warps are
    stored in order, each access within one sector (most sites): its (work-item, k-th
    access) records, a warp's lanes side by side, are the (request, lane) matrix itself. The
    requests and the distinct (request, sector) pairs; None where the shortcut does not hold.

    Counted a block of warps at a time in one small buffer: no array the size of the unit is
    made (new memory costs more to touch than the counting, in a process's first analysis).
    """
    if u.cols is None or u.count is None or isinstance(u.size, np.ndarray) or not u.m:
        return None
    width = ctx.width
    if u.nwi % width or not _warps_in_order(ctx):
        return None
    k = u.count
    warps = u.nwi // width
    requests = warps * k
    if width == 1:
        return (requests, requests) if _within_sectors(u.off, int(u.size)) else None
    step = max(1, _BLOCK // (width * k))  # warps per block
    buffer = np.empty(min(warps, step) * k * width, dtype=u.off.dtype)
    by_warp = u.off.reshape(warps, width, k)
    distinct = requests
    for w in range(0, warps, step):
        block = by_warp[w : w + step]
        if not _within_sectors(block, int(u.size)):
            return None  # some access spans two sectors
        n = block.size
        # (request, lane): the block's k-th accesses, lanes side by side
        np.right_shift(
            block.transpose(0, 2, 1),
            SECTOR.bit_length() - 1,
            out=buffer[:n].reshape(block.shape[0], k, width),
        )
        mat = buffer[:n].reshape(-1, width)
        if not bool((mat[:, 1:] >= mat[:, :-1]).all()):  # lanes in address order: sorted
            mat.sort(axis=1)
        distinct += int(np.count_nonzero(mat[:, 1:] != mat[:, :-1]))
    return requests, distinct


_BLOCK = 1 << 16  # records the sector count takes at a time


def _within_sectors(off: np.ndarray, size: int) -> bool:
    """Whether every access at ``off`` of ``size`` bytes lies within one 32-byte sector."""
    return int((off & (SECTOR - 1)).max()) + max(size, 1) <= SECTOR


def phase_lanes(width: int, bank_bytes: int, access: int) -> int:
    """Lanes of one warp request that local memory serves at once: accesses wider than a bank
    are served in phases, each moving a bank's width per lane of the warp (8-byte accesses in
    half-warps and 16-byte ones in quarter-warps with 4-byte banks); the whole warp when
    that does not divide it."""
    if access <= bank_bytes:
        return width
    lanes = max(1, (width * bank_bytes) // access)
    return lanes if width % lanes == 0 else width


def _bank_degrees(ctx: Context, u: Unit, flat: np.ndarray, requests: int) -> tuple[np.ndarray, int]:
    """Per request: the most distinct bank words that fall in one bank (1 = no conflict; the
    same word read by several lanes is a broadcast and counts once), averaged over the phases
    the hardware serves the request in; and the worst phase's degree."""
    banks, bb = ctx.banks, ctx.bank_bytes
    access = int(u.size) if not isinstance(u.size, np.ndarray) else int(u.size.max())
    lanes = phase_lanes(ctx.width, bb, access)
    # An access of a size no power of two (a vload3 of floats, a struct of three floats) is
    # made in pieces, one instruction each (three loads of a float): each bank word of it
    # is its own pass over the warp.
    pieces = access > bb and access & (access - 1) != 0
    hi_bits = max(1, int((u.max_end // bb) // banks).bit_length())
    narrow = (banks << hi_bits) < I32_MAX
    pow2 = banks & (banks - 1) == 0
    keyed = []
    parts = u.words() if bb == 4 else cells(u.off, u.size, bb, u.max_end // bb < I32_MAX)
    for sel, w in parts:
        w = w if narrow else w.astype(np.int64)
        if pow2:
            key = w & (banks - 1)  # the bank
            row = w >> (banks.bit_length() - 1)  # which word of that bank
        else:
            row, key = np.divmod(w, banks)
        key <<= hi_bits
        key |= row
        keyed.append((sel, key))
    mat, sent = _request_matrix(ctx, flat, requests, keyed, banks << hi_bits, lanes, pieces)
    R, C = mat.shape
    degree = np.ones(R, dtype=np.int64)
    if C > 1:
        degree = _row_degrees(mat, sent, hi_bits)
    if requests == R:
        return degree, int(degree.max())
    # Phases with no active lane (a partial warp) take no time and do not count.
    active = (mat[:, 0] != sent).reshape(requests, -1)
    per_phase = degree.reshape(requests, -1)
    mean = (per_phase * active).sum(axis=1) / np.maximum(1, active.sum(axis=1))
    return mean, int(per_phase[active].max()) if active.any() else 1


def _row_degrees(mat: np.ndarray, sent: int, hi_bits: int) -> np.ndarray:
    """Per row of sorted (bank, word) keys: the most distinct words in one bank."""
    R = mat.shape[0]
    degree = np.ones(R, dtype=np.int64)
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
    upto: np.ndarray = np.cumsum(distinct, axis=1, dtype=ctype)  # distinct words so far
    before: np.ndarray = upto - distinct
    before *= new_bank  # the count where each bank's run starts...
    np.maximum.accumulate(before, axis=1, out=before)  # ...carried along the run
    upto -= before
    return upto.max(axis=1).astype(np.int64)


@dataclass
class _Tally:
    """One site's sums: sectors over global requests, bank degrees over local requests."""

    buffer: int
    accesses: int = 0
    requests: int = 0
    sectors: int = 0
    global_requests: int = 0
    degrees: float = 0.0
    local_requests: int = 0
    worst: int | None = None


def site_stats(ctx: Context, units: Units) -> tuple[SiteStats, ...]:
    """One row per memory-access site with records, in line order (computed once per
    analysis: the cost findings read the same rows)."""
    cached = ctx.memo.get("site_stats")
    if isinstance(cached, tuple):
        return cached
    t = ctx.trace
    acc: dict[int, _Tally] = {}
    for u in units.out_of_bounds:
        acc.setdefault(u.site, _Tally(u.buffer))  # a site whose every access was out of bounds
    for u in units.memory:
        a = acc.setdefault(u.site, _Tally(u.buffer))
        a.accesses += u.m * u.scale
        space = ctx.space(u.buffer)
        counted = _warp_sectors(ctx, u) if space == GLOBAL else None
        if counted is not None:
            a.requests += counted[0] * u.scale
            a.sectors += counted[1] * u.scale
            a.global_requests += counted[0] * u.scale
            continue
        flat, requests = _request_layout(ctx, u)
        a.requests += requests * u.scale
        if space == GLOBAL:
            a.sectors += _sectors(ctx, u, flat, requests) * u.scale
            a.global_requests += requests * u.scale
        elif space == LOCAL:
            deg, worst = _bank_degrees(ctx, u, flat, requests)
            a.degrees += float(deg.sum()) * u.scale
            a.local_requests += requests * u.scale
            a.worst = worst if a.worst is None else max(a.worst, worst)
    out = []
    for sid, a in acc.items():
        s = t.sites[sid]
        b = s.buffer if s.buffer >= 0 else a.buffer
        space = s.space if s.space != NO_SPACE else ctx.space(a.buffer)
        sectors = round(a.sectors / a.global_requests, 4) if a.global_requests else None
        degree = round(a.degrees / a.local_requests, 4) if a.local_requests else None
        stats = SiteStats(
            line=s.line,
            buffer=t.buffers[b].name if b >= 0 else "?",
            space=SPACE_NAMES.get(space, "none"),
            op=OP_NAMES[s.op],
            accesses=a.accesses,
            requests=a.requests,
            sectors_per_request=sectors,
            bank_conflict_degree=degree,
            bank_conflict_worst=a.worst,
            text=s.text,
        )
        out.append((s.line, sid, stats))
    rows = tuple(st for _, _, st in sorted(out, key=lambda x: x[:2]))
    ctx.memo["site_stats"] = rows
    return rows
