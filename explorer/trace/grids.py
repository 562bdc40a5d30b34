"""How a buffer is drawn in the execution view: its matrix shape, its memory order and the
cells it is shown in (numpy only, no Qt). Every buffer of a trace gets a :class:`Grid`."""

from __future__ import annotations

from collections.abc import Container
from dataclasses import dataclass

import numpy as np

from explorer.trace.recorded import Trace

MAX_CELLS = 128  # cells per side of a buffer grid; bigger buffers are aggregated
Box = tuple[int, int, int, int]  # row0, row1, col0, col1 (ends excluded)


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

    def cell_means(self, data: np.ndarray) -> np.ndarray:
        """(cell_rows, cell_cols): the mean over each cell's elements of a (rows, cols) array
        as drawn (NaN counts as 0), the cells ``cell_of`` gives."""
        rows = -(-np.arange(self.cell_rows) * self.rows // self.cell_rows)
        cols = -(-np.arange(self.cell_cols) * self.cols // self.cell_cols)
        flat = np.nan_to_num(np.asarray(data, dtype=np.float64))
        sums = np.add.reduceat(np.add.reduceat(flat, rows, axis=0), cols, axis=1)
        counts = np.diff(np.r_[rows, self.rows])[:, None] * np.diff(np.r_[cols, self.cols])
        return sums / counts

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
    trace: Trace, shapes: dict[str, tuple[int, ...]], column_major: Container[str] = ()
) -> list[Grid]:
    """A grid for every buffer: roles take the family's shapes, local arrays their own;
    the matrices whose roles ``column_major`` holds are stored column by column."""
    grids = []
    for b, info in enumerate(trace.buffers):
        shape = shapes.get(info.role or "") if info.role else None
        if shape is None:
            dims = [d for d in info.shape if d > 0] or [info.length]
            shape = (int(np.prod(dims[:-1])) if len(dims) > 1 else 1, dims[-1])
        if len(shape) == 1:
            shape = (1, shape[0])
        elif len(shape) > 2:  # a 3-D image: its slices one under the other
            shape = (int(np.prod(shape[:-1])), shape[-1])
        rows, cols = int(shape[0]), int(shape[1])
        grids.append(
            Grid(
                b,
                info.name,
                info.space,
                rows,
                cols,
                info.role is not None and info.role in column_major and len(shape) == 2,
                max(1, min(rows, MAX_CELLS)),
                max(1, min(cols, MAX_CELLS)),
            )
        )
    return grids


def box_of(grid: Grid, elements: np.ndarray) -> Box | None:
    """The box of rows and columns these elements span, or None for none."""
    if elements.size == 0:
        return None
    r, c = grid.element_rc(elements)
    return int(r.min()), int(r.max()) + 1, int(c.min()), int(c.max()) + 1
