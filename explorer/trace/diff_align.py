"""Each work-item's first position where two traces' access sequences part (numpy).

Every access is packed into one 64-bit key (phase, operation, buffer, size and byte offset),
so lining up two sequences is one gather and one comparison per position; what differs is
decoded from the two keys only at each work-item's first difference. The positions are
compared a few million at a time, so two traces of tens of millions of records need no
more memory than a few of their columns.
"""

from __future__ import annotations

import numpy as np

from explorer.trace.diff_sides import Accesses
from explorer.trace.recorded import (
    ATOMIC,
    BUFFER_MASK,
    BUFFER_SHIFT,
    PHASE_MASK,
    PHASE_SHIFT,
    RMW,
    SITE_MASK,
    VALUE_WRITTEN,
    WRITE,
    Trace,
)

# Why a position differs, in the order a difference is named when several apply.
SAME, PHASE, OP, BUFFER, ELEMENT, VALUE, MINE_ENDED, REFERENCE_ENDED = range(8)
FLOAT_RTOL, FLOAT_ATOL = 1e-4, 1e-6
CHUNK = 1 << 21  # positions compared at once
# The key's fields: byte offset (32 bits), the size in bytes (10: a 12-byte vload3 is not an
# 8-byte vload2; a size past 1023 counts as 1023), buffer (6), op (3), phase (12).
_SIZE, _BUFFER, _OP, _PHASE = 32, 42, 48, 51
_MAX_SIZE = (1 << (_BUFFER - _SIZE)) - 1


def access_keys(trace: Trace, records: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """One int64 per record: equal keys are the same access (phase, operation, buffer by
    its common ``codes``, size, byte offset) in two traces."""
    word = trace.word[records]
    ops = np.zeros(SITE_MASK + 1, dtype=np.int64)
    ops[: len(trace.sites)] = trace.site_ops()[:-1]
    table = np.zeros(BUFFER_MASK + 1, dtype=np.int64)
    table[: codes.size] = codes
    key = trace.offset[records].astype(np.int64)
    key &= 0xFFFFFFFF
    key |= np.minimum(trace.sizes_of(word), _MAX_SIZE).astype(np.int64) << _SIZE
    key |= table[(word >> BUFFER_SHIFT) & BUFFER_MASK] << _BUFFER
    key |= ops[word & SITE_MASK] << _OP
    key |= ((word >> PHASE_SHIFT) & PHASE_MASK).astype(np.int64) << _PHASE
    return key


def reason(mine: np.ndarray, theirs: np.ndarray) -> np.ndarray:
    """Per pair of differing keys (equal keys: the values differ), why they differ."""
    out = np.full(mine.size, VALUE, dtype=np.int64)
    for why, shift, bits in ((ELEMENT, 0, _BUFFER), (BUFFER, _BUFFER, 6), (OP, _OP, 3)):
        mask = (1 << bits) - 1
        out = np.where(((mine >> shift) & mask) != ((theirs >> shift) & mask), why, out)
    return np.where((mine >> _PHASE) != (theirs >> _PHASE), PHASE, out)


def first_differences(
    mine: Trace,
    reference: Trace,
    sides: tuple[Accesses, Accesses],
    work_items: tuple[np.ndarray, np.ndarray],
    codes: tuple[np.ndarray, np.ndarray],
    values: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """Per matched work-item pair: the position of its first difference over the length
    both sequences have (-1: none there) and why (a reason code)."""
    am, ar = sides
    wm, wr = work_items
    length = np.minimum(am.count[wm], ar.count[wr])
    first_k = np.full(wm.size, -1, dtype=np.int64)
    why = np.zeros(wm.size, dtype=np.int64)
    ends = np.cumsum(length)
    total = int(ends[-1]) if ends.size else 0
    cuts = np.unique(np.searchsorted(ends, np.arange(CHUNK, total, CHUNK), side="right"))
    for p0, p1 in zip(np.r_[0, cuts], np.r_[cuts, wm.size], strict=True):
        n = length[p0:p1]
        if not n.sum():
            continue
        local_ends = np.cumsum(n)
        offs = local_ends - n
        at = np.arange(int(local_ends[-1]), dtype=np.int64)
        rm = am.records[np.repeat(am.start[wm[p0:p1]] - offs, n) + at]
        rr = ar.records[np.repeat(ar.start[wr[p0:p1]] - offs, n) + at]
        km, kr = access_keys(mine, rm, codes[0]), access_keys(reference, rr, codes[1])
        differ = km != kr
        if values:
            differ |= values_differ(mine, reference, rm, rr)
        d = np.flatnonzero(differ)
        if d.size == 0:
            continue
        pair = np.searchsorted(local_ends, d, side="right")
        first = np.r_[True, pair[1:] != pair[:-1]]
        d, pair = d[first], pair[first]
        first_k[p0 + pair] = d - offs[pair]
        why[p0 + pair] = reason(km[d], kr[d])
    return first_k, why


def values_differ(mine: Trace, reference: Trace, rm: np.ndarray, rr: np.ndarray) -> np.ndarray:
    """Per compared position: both wrote a recorded value, and the values differ (a float
    beyond a relative ``FLOAT_RTOL``, anything else in any bit)."""
    out = np.zeros(rm.size, dtype=bool)
    if mine.values is None or reference.values is None:
        return out
    writes_m, floats_m = _site_tables(mine)
    writes_r, floats_r = _site_tables(reference)
    site_m, site_r = mine.site[rm], reference.site[rr]
    both = np.flatnonzero(writes_m[site_m] & writes_r[site_r])
    if both.size == 0:
        return out
    raw_m = mine.values[rm[both]].astype(np.uint64)
    raw_r = reference.values[rr[both]].astype(np.uint64)
    as_float = floats_m[site_m[both]] & floats_r[site_r[both]]
    close = np.isclose(
        as_float32(raw_m), as_float32(raw_r), rtol=FLOAT_RTOL, atol=FLOAT_ATOL, equal_nan=True
    )
    out[both] = np.where(as_float, ~close, raw_m != raw_r)
    return out


def _site_tables(trace: Trace) -> tuple[np.ndarray, np.ndarray]:
    """Per site: a plain write whose stored value is recorded; a float32 value."""
    writes = [s.value == VALUE_WRITTEN and s.op in (WRITE, RMW) for s in trace.sites]
    floats = [s.value_type.startswith("float") for s in trace.sites]
    return np.array(writes + [False]), np.array(floats + [False])


def written_value(trace: Trace, record: int) -> float | int | None:
    """The value a plain write stored, where recorded (a float as a float)."""
    if trace.values is None:
        return None
    site = trace.sites[int(trace.site[record])]
    if site.value != VALUE_WRITTEN or site.op not in (WRITE, RMW) or site.op == ATOMIC:
        return None
    raw = np.array([trace.values[record]], dtype=np.uint64)
    return float(as_float32(raw)[0]) if site.value_type.startswith("float") else int(raw[0])


def as_float32(raw: np.ndarray) -> np.ndarray:
    """The float32 values whose bits are the low 32 of ``raw``, as float64."""
    bits = (raw & np.uint64(0xFFFFFFFF)).astype(np.uint32)
    with np.errstate(invalid="ignore"):  # integers whose bits read as a signalling NaN
        return bits.view(np.float32).astype(np.float64)
