"""Global-memory traffic: how many times each element of every global input buffer was loaded
(why tiling pays) and the bytes read and written."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.trace.analysis.context import READS, WRITES, Context
from explorer.trace.analysis.threads import thread_count, thread_map
from explorer.trace.analysis.units import Unit, Units, cells
from explorer.trace.recorded import ATOMIC, GLOBAL, READ, RMW


@dataclass(frozen=True)
class Traffic:
    """Loads per element (global input buffer -> min/max/mean) and global bytes moved."""

    loads_per_element: dict[str, dict[str, float]]
    bytes_read: int
    bytes_written: int


def traffic(ctx: Context, units: Units) -> Traffic:
    """Loads per element of every global input buffer, and global bytes read and written."""
    t = ctx.trace
    # Per global input buffer, its loads per element; None until a site loads from it (the
    # first site's counts become the buffer's, rather than being added to zeros).
    counts: dict[int, np.ndarray | None] = {
        b: None
        for b, info in enumerate(t.buffers)
        if info.space == GLOBAL and not (t.output_role is not None and info.role == t.output_role)
    }
    read = written = 0
    loaded = []
    for u in units.memory:
        if ctx.space(u.buffer) != GLOBAL:
            continue
        nbytes = int(u.size.sum()) if isinstance(u.size, np.ndarray) else u.m * int(u.size)
        if u.op in (READ, RMW, ATOMIC):
            read += nbytes
        if u.op in WRITES:
            written += nbytes
        if u.op in READS and u.buffer in counts:
            loaded.append(u)

    def loads_of(part: list[Unit]) -> dict[int, np.ndarray]:
        totals: dict[int, np.ndarray] = {}
        for u in part:
            info = t.buffers[u.buffer]
            total = totals.get(u.buffer)
            if total is None:
                total = totals[u.buffer] = np.zeros(info.length, dtype=np.int64)
            if not _count_by_columns(total, u, info.elem_size):
                for _, e in cells(u.off, u.size, info.elem_size):
                    total += np.bincount(_column_order(u, e), minlength=total.size)[: total.size]
        return totals

    # The sites' loads counted on several threads, each into a total per buffer of its own:
    # one per site would hold a buffer-sized array for each of a stencil's reads at once.
    parts = thread_count(len(loaded))
    for totals in thread_map(loads_of, [loaded[i::parts] for i in range(parts)]):
        for b, total in totals.items():
            before = counts[b]
            if before is None:
                counts[b] = total
            else:
                before += total
    loads: dict[str, dict[str, float]] = {}
    for b, c in counts.items():
        loads[t.buffers[b].name] = (
            {"min": int(c.min()), "max": int(c.max()), "mean": round(float(c.mean()), 4)}
            if c is not None and c.size
            else {"min": 0, "max": 0, "mean": 0.0}
        )
    return Traffic(loads, read, written)


def _column_order(u: Unit, values: np.ndarray) -> np.ndarray:
    """A uniform unit's ``values`` (one per record, work-item after work-item) taken one
    column at a time: neighbouring work-items' accesses at one step of their sequence lie
    side by side, so counting them keeps the counts in cache (the 1.1 M loads of B in a
    768² matmul's window, down a column within each work-item: 28 ms, 3 ms this way on a
    2-core host). The counts do not depend on the order."""
    k = 0 if u.cols is None else int(u.cols.size)
    if k < 2 or values.size != u.nwi * k:
        return values
    return np.ascontiguousarray(values.reshape(u.nwi, k).T).reshape(-1)


_BLOCK = 1 << 16  # records counted at a time


def _count_by_columns(total: np.ndarray, u: Unit, elem: int) -> bool:
    """Add to ``total`` the loads of a uniform unit whose every access lies within one
    element of ``elem`` bytes (a power of two) inside the buffer, a few columns at a time
    (neighbouring work-items' accesses side by side, as :func:`_column_order` lays them) in
    one small buffer: no array the size of the unit is made. False, and nothing added, for
    any other unit."""
    k = 0 if u.cols is None else int(u.cols.size)
    if k < 2 or u.m != u.nwi * k or isinstance(u.size, np.ndarray) or elem & (elem - 1):
        return False
    size = max(int(u.size), 1)
    for start in range(0, u.m, _BLOCK):
        block = u.off[start : start + _BLOCK]
        if int(block.min()) < 0 or int((block & (elem - 1)).max()) + size > elem:
            return False
    shift = elem.bit_length() - 1
    if (u.max_end - 1) >> shift >= total.size:
        return False
    by_column = u.off.reshape(u.nwi, k).T
    step = max(1, _BLOCK // u.nwi)  # columns per block
    buffer = np.empty((min(k, step), u.nwi), dtype=u.off.dtype)
    for j in range(0, k, step):
        block = by_column[j : j + step]
        elements = buffer[: block.shape[0]]
        np.right_shift(block, shift, out=elements)
        np.add.at(total, elements.reshape(-1), 1)
    return True
