"""A trace indexed for the animation: its records as columns, which groups were traced and
in which order they started, where each work-item's records lie, and what is summed once
over the whole trace (loads per element); numpy only, no Qt."""

from __future__ import annotations

import numpy as np

from explorer.trace.columns import (
    coverage,
    element_column,
    last_element_column,
    line_column,
    record_columns,
    spread,
)
from explorer.trace.grids import Box, Grid
from explorer.trace.recorded import ATOMIC, READ, RMW, WRITE, Trace

# Per op code (READ … FENCE): whether the op reads, whether it writes; a table lookup is far
# cheaper than ``np.isin`` on the few records of one step.
READS = np.array([True, False, True, True, False, False])
WRITES = np.array([False, True, True, True, False, False])


class Accesses:
    """Some records' buffer, whether each stayed inside it, element and op, read once: a
    frame asks for them buffer by buffer, and each read of a record column costs more than
    the selection of one buffer's records."""

    def __init__(self, index: TraceIndex, records: np.ndarray) -> None:
        self.records = records
        self.buffers = index.buffer[records]
        self.in_bounds = ~index.oob[records]
        self.elements = index.index[records]
        self.last = index.last[records]  # the last element each covers (a vload4: 3 more)
        self.ops = index.op[records]

    def of(self, buffer: int) -> np.ndarray:
        """Which of the records are on ``buffer`` and inside it (a mask)."""
        return (self.buffers == buffer) & self.in_bounds


class TraceIndex:
    """One trace and the buffer grids it is drawn in, indexed: per-record columns (computed
    for the records asked for), per work-item where its records start, per group whether
    it was traced and when it started."""

    def __init__(self, trace: Trace, grids: list[Grid]) -> None:
        self.trace = trace
        self.grids = grids
        self.group_linear = trace.group_linear()  # per work-item
        self.local_linear = trace.local_linear()
        self.line = line_column(trace)
        self.line_of_site = np.array([s.line for s in trace.sites] + [0], dtype=np.int32)
        self.site_ops = trace.site_ops()
        self.index = element_column(trace)
        self.last = last_element_column(trace)
        (self.wi, _seq, self.phase, self.site, self.op, self.buffer, self.oob) = record_columns(
            trace
        )
        kept = np.asarray(trace.kept, dtype=np.int64)
        self.wi_start = np.cumsum(kept) - kept
        self.traced_groups = set(int(g) for g in np.unique(self.group_linear))
        self.num_groups = trace.num_groups
        gx, gy, _ = trace.num_groups
        self.dispatch_rank = np.full(int(np.prod(trace.num_groups)), -1, dtype=np.int64)
        order = np.asarray(trace.dispatch_order, dtype=np.int64).reshape(-1, 3)
        self.dispatch_rank[order[:, 0] + gx * (order[:, 1] + gy * order[:, 2])] = np.arange(
            order.shape[0]
        )
        self._heat: dict[int, np.ndarray] = {}
        self._element_heat: dict[int, np.ndarray] = {}

    # -- groups and work-items -------------------------------------------------------------
    def group_index(self, group: tuple[int, int, int]) -> int:
        gx, gy, _ = self.num_groups
        return group[0] + gx * (group[1] + gy * group[2])

    def group_at(self, linear: int) -> tuple[int, int, int]:
        """The group of a linear group id (x fastest)."""
        gx, gy, _ = self.num_groups
        return linear % gx, (linear // gx) % gy, linear // (gx * gy)

    def is_traced(self, group: tuple[int, int, int]) -> bool:
        """Whether the group is in the NDRange and was traced."""
        inside = all(0 <= int(g) < n for g, n in zip(group, self.num_groups, strict=False))
        return inside and self.group_index(group) in self.traced_groups

    def records_of(self, work_item: int) -> np.ndarray:
        """The record indices of one work-item (the trace's index of it), in its order."""
        start = self.wi_start[work_item]
        return np.arange(start, start + self.trace.kept[work_item])

    def local_id(self, local_linear: int) -> tuple[int, int, int]:
        """A work-item's local id from its linear local id."""
        lx, ly = (list(self.trace.local_size) + [1, 1])[:2]
        return local_linear % lx, (local_linear // lx) % ly, local_linear // (lx * ly)

    # -- records on a buffer -----------------------------------------------------------------
    def cell_masks(self, grid: Grid, records: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(read, write) per cell for these records on this buffer."""
        mine = records[(self.buffer[records] == grid.buffer) & ~self.oob[records]]
        elements, which = spread(self.index[mine], self.last[mine])
        ops = self.op[mine][which]
        cells = grid.cell_of(elements)
        size = grid.cell_rows * grid.cell_cols
        reads = np.zeros(size, dtype=bool)
        writes = np.zeros(size, dtype=bool)
        ok = cells >= 0
        reads[cells[ok & np.isin(ops, (READ, RMW, ATOMIC))]] = True
        writes[cells[ok & np.isin(ops, (WRITE, RMW, ATOMIC))]] = True
        return reads.reshape(grid.cell_rows, grid.cell_cols), writes.reshape(
            grid.cell_rows, grid.cell_cols
        )

    def window_masks(
        self, grid: Grid, records: np.ndarray | Accesses, window: Box
    ) -> tuple[np.ndarray, np.ndarray]:
        """(read, write) per element of a window of the buffer, for these records (or their
        :class:`Accesses`, read once for every buffer)."""
        if not isinstance(records, Accesses):
            records = Accesses(self, records)
        mine = records.of(grid.buffer)
        elements, which = spread(records.elements[mine], records.last[mine])
        return masks_in_window(grid, elements, records.ops[mine][which], window)

    def accesses(self, records: np.ndarray) -> Accesses:
        """These records' columns a frame draws, read once."""
        return Accesses(self, records)

    def box(self, grid: Grid, records: np.ndarray) -> Box | None:
        """The box of elements these records of the buffer touch, or None for none."""
        if records.size == 0:
            return None
        r, c = grid.element_rc(spread(self.index[records], self.last[records])[0])
        return int(r.min()), int(r.max()) + 1, int(c.min()), int(c.max()) + 1

    # -- over every traced group -------------------------------------------------------------
    def element_heat(self, grid: Grid) -> np.ndarray:
        """Global loads of each element, (rows, cols), summed over every traced group."""
        if grid.buffer not in self._element_heat:
            t = self.trace
            mask = (t.buffer == grid.buffer) & np.isin(t.op, (READ, RMW)) & ~t.oob
            counts = coverage(self.index[mask], self.last[mask], grid.rows * grid.cols)
            heat = (
                counts.reshape(grid.cols, grid.rows).T
                if grid.column_major
                else counts.reshape(grid.rows, grid.cols)
            )
            self._element_heat[grid.buffer] = heat
        return self._element_heat[grid.buffer]

    def heat(self, grid: Grid) -> np.ndarray:
        """Global loads per cell over every traced group (mean per element of the cell)."""
        if grid.buffer in self._heat:
            return self._heat[grid.buffer]
        t = self.trace
        mask = (t.buffer == grid.buffer) & np.isin(t.op, (READ, RMW)) & ~t.oob
        loads = coverage(self.index[mask], self.last[mask], grid.rows * grid.cols)
        size = grid.cell_rows * grid.cell_cols
        cell = grid.cell_of(np.arange(grid.rows * grid.cols))
        counts = np.bincount(cell, weights=loads, minlength=size)
        per_cell = np.bincount(cell, minlength=size)
        heat = (counts / np.maximum(per_cell, 1)).reshape(grid.cell_rows, grid.cell_cols)
        self._heat[grid.buffer] = heat
        return heat


def masks_in_window(
    grid: Grid, elements: np.ndarray, ops: np.ndarray, window: Box
) -> tuple[np.ndarray, np.ndarray]:
    """(read, write) per element of a window of the buffer, for accesses of these elements
    (inside the buffer) by these ops."""
    r0, r1, c0, c1 = window
    reads = np.zeros((r1 - r0, c1 - c0), dtype=bool)
    if elements.size == 0:  # most buffers, for one work-item's accesses
        return reads, np.zeros_like(reads)
    r, c = grid.element_rc(elements)
    inside = (r >= r0) & (r < r1) & (c >= c0) & (c < c1)
    ops = ops[inside]
    r, c = r[inside] - r0, c[inside] - c0
    writes = np.zeros_like(reads)
    is_read, is_write = READS[ops], WRITES[ops]
    reads[r[is_read], c[is_read]] = True
    writes[r[is_write], c[is_write]] = True
    return reads, writes
