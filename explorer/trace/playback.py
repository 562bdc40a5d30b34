"""Stepping through a trace: the model behind the animation (numpy only, no Qt).

A *step* is one source line within one phase of the selected work-group, in the order the
group first executed it. Everything a view shows for a step (the tile a group loads, the
elements read and written, the local memory each work-item wrote, what the hovered
work-item touched) is a selection of the trace's own records, never re-derived.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.trace.records import ATOMIC, BARRIER, FENCE, GLOBAL, LOCAL, READ, RMW, WRITE, Trace

MAX_CELLS = 128  # cells per side of a buffer grid; bigger buffers are aggregated


@dataclass(frozen=True)
class Step:
    index: int
    phase: int
    line: int


@dataclass(frozen=True)
class Grid:
    """How a buffer is drawn: its shape, its memory order, and the cells it is shown in."""

    buffer: int
    name: str
    space: int
    rows: int
    cols: int
    column_major: bool
    cell_rows: int
    cell_cols: int

    def element_rc(self, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        index = np.asarray(index, dtype=np.int64)
        if self.column_major:
            return index % self.rows, index // self.rows
        return index // self.cols, index % self.cols

    def cell_of(self, index: np.ndarray) -> np.ndarray:
        """Linear cell id of each element index (elements outside the buffer: -1)."""
        index = np.asarray(index, dtype=np.int64)
        r, c = self.element_rc(index)
        inside = (index >= 0) & (index < self.rows * self.cols)
        cr = r * self.cell_rows // max(self.rows, 1)
        cc = c * self.cell_cols // max(self.cols, 1)
        return np.where(inside, cr * self.cell_cols + cc, -1)

    def elements_of_cell(self, cell: int) -> tuple[int, int, int, int]:
        """(row0, row1, col0, col1) of the elements a cell covers."""
        cr, cc = divmod(cell, self.cell_cols)
        r0 = -(-cr * self.rows // self.cell_rows)
        r1 = -(-(cr + 1) * self.rows // self.cell_rows)
        c0 = -(-cc * self.cols // self.cell_cols)
        c1 = -(-(cc + 1) * self.cols // self.cell_cols)
        return r0, max(r1, r0 + 1), c0, max(c1, c0 + 1)

    def index_at(self, row: int, col: int) -> int:
        return col * self.rows + row if self.column_major else row * self.cols + col


def make_grids(
    trace: Trace, shapes: dict[str, tuple[int, ...]], column_major: bool = False
) -> list[Grid]:
    """A grid for every buffer: roles take the family's shapes, local arrays their own."""
    grids = []
    for b, info in enumerate(trace.buffers):
        shape = shapes.get(info.role or "") if info.role else None
        if shape is None:
            dims = [d for d in info.shape if d > 0] or [info.length]
            shape = (int(np.prod(dims[:-1])) if len(dims) > 1 else 1, dims[-1])
        if len(shape) == 1:
            shape = (1, shape[0])
        rows, cols = int(shape[0]), int(shape[1])
        grids.append(
            Grid(
                b,
                info.name,
                info.space,
                rows,
                cols,
                column_major and info.role is not None and len(shape) == 2,
                max(1, min(rows, MAX_CELLS)),
                max(1, min(cols, MAX_CELLS)),
            )
        )
    return grids


class Playback:
    """The selected group's steps, and the records behind each."""

    def __init__(self, trace: Trace, grids: list[Grid]) -> None:
        self.trace = trace
        self.grids = grids
        self.group_linear = trace.group_linear()  # per work-item
        self.local_linear = trace.local_linear()
        self.line = np.array([s.line for s in trace.sites] + [0], dtype=np.int32)[trace.site]
        self.index = trace.index()
        self.record_group = self.group_linear[trace.wi]
        traced = np.unique(self.group_linear)
        self.traced_groups = set(int(g) for g in traced)
        gx, gy, _ = trace.num_groups
        self.num_groups = trace.num_groups
        total = int(np.prod(trace.num_groups))
        self.dispatch_rank = np.full(total, -1, dtype=np.int64)
        for rank, (x, y, z) in enumerate(trace.dispatch_order):
            self.dispatch_rank[x + gx * (y + gy * z)] = rank
        self.group: tuple[int, int, int] | None = None
        self.steps: list[Step] = []
        self._records = np.zeros(0, dtype=np.int64)
        first = min(self.traced_groups) if self.traced_groups else 0
        self.select_group((first % gx, (first // gx) % gy, first // (gx * gy)))
        self._heat: dict[int, np.ndarray] = {}

    # -- selection ---------------------------------------------------------------------
    def group_index(self, group: tuple[int, int, int]) -> int:
        gx, gy, _ = self.num_groups
        return group[0] + gx * (group[1] + gy * group[2])

    def is_traced(self, group: tuple[int, int, int]) -> bool:
        return self.group_index(group) in self.traced_groups

    def select_group(self, group: tuple[int, int, int]) -> bool:
        """Select a group; False when it was not traced (trace it, then select again)."""
        g = self.group_index(group)
        if g not in self.traced_groups:
            return False
        self.group = tuple(group)  # type: ignore[assignment]
        self._records = np.nonzero(self.record_group == g)[0]
        self.steps = self._make_steps()
        return True

    def _make_steps(self) -> list[Step]:
        t = self.trace
        recs = self._records
        if recs.size == 0:
            return []
        phase = t.phase[recs].astype(np.int64)
        line = self.line[recs].astype(np.int64)
        seq = t.seq[recs].astype(np.int64)
        # Order within a phase: the first time any work-item of the group reached the line.
        key = phase * (1 << 20) + line
        uniq, inverse = np.unique(key, return_inverse=True)
        first = np.full(uniq.size, np.iinfo(np.int64).max)
        np.minimum.at(first, inverse, seq)
        order = np.lexsort((first, uniq >> 20))
        return [
            Step(i, int(uniq[j] >> 20), int(uniq[j] & ((1 << 20) - 1))) for i, j in enumerate(order)
        ]

    @property
    def phases(self) -> int:
        return (max(s.phase for s in self.steps) + 1) if self.steps else 0

    def step_records(self, step: int) -> np.ndarray:
        """Record indices of the selected group at one step (phase and line)."""
        s = self.steps[step]
        recs = self._records
        return recs[(self.trace.phase[recs] == s.phase) & (self.line[recs] == s.line)]

    def phase_records(self, phase: int) -> np.ndarray:
        recs = self._records
        return recs[self.trace.phase[recs] == phase]

    def first_step_of(self, phase: int, line: int | None = None) -> int | None:
        for s in self.steps:
            if s.phase == phase and (line is None or s.line == line):
                return s.index
        for s in self.steps:
            if line is not None and s.line == line:
                return s.index
        return None

    # -- what a view draws ----------------------------------------------------------------
    def cell_masks(self, grid: Grid, records: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(read, write) per cell for these records on this buffer."""
        t = self.trace
        mine = records[(t.buffer[records] == grid.buffer) & ~t.oob[records]]
        ops = t.op[mine]
        cells = grid.cell_of(self.index[mine])
        size = grid.cell_rows * grid.cell_cols
        reads = np.zeros(size, dtype=bool)
        writes = np.zeros(size, dtype=bool)
        ok = cells >= 0
        reads[cells[ok & np.isin(ops, (READ, RMW, ATOMIC))]] = True
        writes[cells[ok & np.isin(ops, (WRITE, RMW, ATOMIC))]] = True
        return reads.reshape(grid.cell_rows, grid.cell_cols), writes.reshape(
            grid.cell_rows, grid.cell_cols
        )

    def heat(self, grid: Grid) -> np.ndarray:
        """Global loads per cell over every traced group (mean per element of the cell)."""
        if grid.buffer in self._heat:
            return self._heat[grid.buffer]
        t = self.trace
        mask = (t.buffer == grid.buffer) & np.isin(t.op, (READ, RMW)) & ~t.oob
        cells = grid.cell_of(self.index[mask])
        size = grid.cell_rows * grid.cell_cols
        counts = np.bincount(cells[cells >= 0], minlength=size).astype(np.float64)
        per_cell = np.bincount(grid.cell_of(np.arange(grid.rows * grid.cols)), minlength=size)
        heat = (counts / np.maximum(per_cell, 1)).reshape(grid.cell_rows, grid.cell_cols)
        self._heat[grid.buffer] = heat
        return heat

    def local_writers(self, grid: Grid, step: int) -> tuple[np.ndarray, np.ndarray]:
        """Per cell: the linear local id of the work-item whose value the cell holds at this
        step (the last writer in any phase up to it), or -1; and whether that write happened
        in the current phase."""
        t = self.trace
        current = self.steps[step]
        done = {(s.phase, s.line) for s in self.steps[: step + 1]}
        recs = self._records
        recs = recs[
            (t.buffer[recs] == grid.buffer)
            & np.isin(t.op[recs], (WRITE, RMW, ATOMIC))
            & ~t.oob[recs]
            & (t.phase[recs] <= current.phase)
        ]
        key = t.phase[recs].astype(np.int64) * (1 << 20) + self.line[recs]
        allowed = np.array([p * (1 << 20) + line for p, line in done], dtype=np.int64)
        recs = recs[np.isin(key, allowed)]
        # Later phases overwrite earlier ones: order by phase, then sequence.
        order = np.lexsort((t.seq[recs], t.phase[recs]))
        recs = recs[order]
        writer = np.full(grid.cell_rows * grid.cell_cols, -1, dtype=np.int64)
        fresh = np.zeros(grid.cell_rows * grid.cell_cols, dtype=bool)
        cells = grid.cell_of(self.index[recs])
        ok = cells >= 0
        writer[cells[ok]] = self.local_linear[t.wi[recs[ok]]]
        fresh[cells[ok & (t.phase[recs] == current.phase)]] = True
        shape = (grid.cell_rows, grid.cell_cols)
        return writer.reshape(shape), fresh.reshape(shape)

    def work_item_records(self, local_linear: int, phase: int) -> np.ndarray:
        recs = self.phase_records(phase)
        return recs[self.local_linear[self.trace.wi[recs]] == local_linear]

    def touching(self, grid: Grid, cell: int, phase: int) -> list[tuple[tuple[int, ...], int, str]]:
        """Who touched a cell in this phase of the selected group: (local id, line, op)."""
        t = self.trace
        recs = self.phase_records(phase)
        recs = recs[(t.buffer[recs] == grid.buffer) & ~t.oob[recs]]
        recs = recs[grid.cell_of(self.index[recs]) == cell]
        names = {READ: "read", WRITE: "write", RMW: "read-modify-write", ATOMIC: "atomic"}
        out = []
        for r in recs[:64]:
            local = tuple(int(v) for v in t.wi_local[t.wi[r]])
            out.append((local, int(self.line[r]), names.get(int(t.op[r]), "?")))
        return out

    def step_lines(self, step: int) -> list[int]:
        return [self.steps[step].line] if self.steps else []

    def barrier_steps(self) -> list[int]:
        """Steps whose line is a barrier: where the timeline draws its marks."""
        barrier_lines = {s.line for s in self.trace.sites if s.op == BARRIER}
        return [s.index for s in self.steps if s.line in barrier_lines]


__all__ = ["BARRIER", "FENCE", "GLOBAL", "LOCAL", "Grid", "Playback", "Step", "make_grids"]
