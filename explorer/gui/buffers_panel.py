"""The matrices of the animation: the map of work-groups and every buffer of the trace, each
on its own canvas in its place (for A×B=C the textbook picture: B above C, A to its left,
the local tiles beside them; otherwise the global buffers in a row, local memory below; where
more than fit beside the work-groups, every buffer in rows of three)."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import Signal
from PySide6.QtWidgets import QGridLayout, QWidget

from explorer.gui.buffer_pictures import BufferPictures, StepScene, step_scene
from explorer.gui.canvas import CellCanvas
from explorer.gui.cell_colours import gradient
from explorer.gui.room_view import WholeCanvas, room_places
from explorer.gui.tiling_view import ROOM_CELL, ROOM_SMALLEST_PX, FocusCanvas
from explorer.gui.wrapping import wrap_width
from explorer.trace.grids import Grid
from explorer.trace.playback import Playback
from explorer.trace.recorded import GLOBAL, LOCAL

# The most canvases a row of the desk holds: beside the source at 1280×720 a fourth column's
# canvases are too narrow for their titles ("result 1000 (wrapped)") and overviews.
DESK_COLUMNS = 3


class BuffersPanel(QWidget):
    """The work-groups and the buffers; the mouse over them comes out as signals."""

    cell_hovered = Signal(object, int, int)  # grid, row, col; -1, -1 when the mouse leaves
    cell_clicked = Signal(object, int, int)  # grid, row, col
    group_hovered = Signal(int)  # a cell of the work-groups map; -1 when the mouse leaves
    group_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.area = QGridLayout(self)
        self.area.setContentsMargins(0, 0, 0, 0)
        self.area.setSpacing(6)
        self.groups = CellCanvas("Work-groups")
        self.groups.clicked.connect(self.group_clicked)
        self.groups.hovered.connect(self.group_hovered)
        self.canvases: dict[int, FocusCanvas] = {}  # by buffer
        self.wholes: dict[int, WholeCanvas] = {}  # the room view's whole buffers
        self.room = False  # presenter mode: the room view (see explorer.gui.room_view)
        self.smallest_value_px = ROOM_SMALLEST_PX  # the room view's smallest values
        self.room_cell_px = ROOM_CELL  # the room view's cells (a slide's: larger)
        self.interactive = True  # False on a slide: no title tells to hover
        self._drawn: tuple[Playback, BufferPictures] | None = None

    def set_room(self, on: bool) -> None:
        """The room view (presenter mode) or the desk's focus and context, redrawn at once."""
        if on == self.room:
            return
        self.room = on
        if self._drawn is not None:
            pb, pictures = self._drawn
            pictures.limits, pictures.desk_wraps = {}, {}
            self.show_trace(pb)
            if pb.steps:
                self.show_groups(pb)
                self.draw(pb, pictures)

    def show_trace(self, pb: Playback) -> None:
        """A canvas for every buffer of the trace, in its place, beside the work-groups (the
        room view: the buffers whole beside the cells that carry values)."""
        self.clear()
        if self.room:
            self._show_room(pb)
            return
        self.area.addWidget(self.groups, 0, 0)
        self.groups.show()
        places = _places(pb)
        for grid, (row, col) in places.items():
            canvas = self._canvas(pb, grid)
            if wrap_width(grid, pb.trace.local_size):
                canvas.resized.connect(self._fit_desk)
            self.area.addWidget(canvas, row, col)
        used = {col for _row, col in places.values()} | {0}
        rows = max(2, 1 + max((row for row, _col in places.values()), default=0))
        for i in range(max(rows, 4)):
            self.area.setRowStretch(i, 1 if i < rows else 0)
            self.area.setColumnStretch(i, 1 if i in used else 0)

    def _canvas(self, pb: Playback, grid: Grid) -> FocusCanvas:
        canvas = FocusCanvas(_title(pb, grid), room=self.room)
        canvas.smallest_px = self.smallest_value_px
        canvas.room_cell = self.room_cell_px
        canvas.interactive = self.interactive
        canvas.hovered.connect(lambda r, c, g=grid: self.cell_hovered.emit(g, r, c))
        canvas.clicked.connect(lambda r, c, g=grid: self.cell_clicked.emit(g, r, c))
        self.canvases[grid.buffer] = canvas
        return canvas

    def _show_room(self, pb: Playback) -> None:
        """The whole buffers in a column; beside them, as large as the panel allows, the
        local arrays (or the windows) with their values."""
        self.groups.hide()
        whole, detailed = room_places(pb)
        for row, grid in enumerate(whole):
            whole_canvas = WholeCanvas(_title(pb, grid))
            self.wholes[grid.buffer] = whole_canvas
            self.area.addWidget(whole_canvas, row, 0)
        span = max(len(whole), 1)
        for col, grid in enumerate(detailed, start=1):
            canvas = self._canvas(pb, grid)
            canvas.resized.connect(self._fit_room)
            self.area.addWidget(canvas, 0, col, span, 1)
        for i in range(max(span, 4)):
            self.area.setRowStretch(i, 1 if i < span else 0)
        for i in range(max(len(detailed) + 1, 4)):
            self.area.setColumnStretch(i, 1 if i == 0 else 3 if i <= len(detailed) else 0)

    def _fit_room(self) -> None:
        """Each canvas of the room view shows no more cells than fit at a readable size."""
        if self._drawn is None or not self.room:
            return
        pb, pictures = self._drawn
        limits = {b: c.room_capacity() for b, c in self.canvases.items()}
        if limits != pictures.limits:
            pictures.limits = limits
            if pb.steps and pb.cursor.group_steps is not None:
                self.draw(pb, pictures)

    def _fit_desk(self) -> None:
        """Each wrapped vector of the desk shows as many elements a row as its canvas holds
        at a readable size: a block of cells, as in the room view, not a strip."""
        if self._drawn is None or self.room:
            return
        pb, pictures = self._drawn
        wraps = {
            g.buffer: self.canvases[g.buffer].desk_capacity()
            for g in pb.grids
            if g.buffer in self.canvases and wrap_width(g, pb.trace.local_size)
        }
        if wraps != pictures.desk_wraps:
            pictures.desk_wraps = wraps
            if pb.steps and pb.cursor.group_steps is not None:
                self.draw(pb, pictures)

    def clear(self) -> None:
        """No canvas; the work-groups' hidden until the next trace."""
        self.groups.hide()  # taken out of the layout, it would stay where it was drawn
        while self.area.count():
            item = self.area.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None and widget is not self.groups:
                widget.deleteLater()
        self.canvases = {}
        self.wholes = {}
        if self._drawn is not None:
            self._drawn[1].limits = {}  # sized for canvases that are gone
            self._drawn[1].desk_wraps = {}
        self._drawn = None

    def show_groups(self, pb: Playback) -> None:
        """The work-groups: darker started later, faded where not traced, the selected one
        outlined."""
        index = pb.index
        gx, gy, gz = index.num_groups
        rank = index.dispatch_rank[: gx * gy].reshape(gy, gx).astype(np.float64)
        pixels = gradient(np.where(rank >= 0, rank + 1, 0))
        traced = np.zeros(gx * gy, dtype=bool)
        for g in index.traced_groups:
            if g < gx * gy:
                traced[g] = True
        pixels[~traced.reshape(gy, gx), 3] = 90
        self.groups.set_pixels(pixels)
        if pb.group is not None:
            x, y, _ = pb.group
            self.groups.outlines = [(y, y + 1, x, x + 1, "#e74c3c")]
        self.groups.caption = f"group {pb.group} · {len(index.traced_groups)}/{gx * gy * gz} traced"

    def draw(self, pb: Playback, pictures: BufferPictures) -> StepScene:
        """Every buffer at the cursor's step; the scene they were drawn from."""
        self._drawn = (pb, pictures)
        if self.room and not pictures.limits and self.canvases:
            pictures.limits = {b: c.room_capacity() for b, c in self.canvases.items()}
        if not self.room and not pictures.desk_wraps and self.canvases:
            pictures.desk_wraps = {
                g.buffer: self.canvases[g.buffer].desk_capacity()
                for g in pb.grids
                if g.buffer in self.canvases and wrap_width(g, pb.trace.local_size)
            }
        scene = step_scene(pb)
        for grid in pb.grids:
            canvas = self.canvases.get(grid.buffer)
            whole = self.wholes.get(grid.buffer)
            if canvas is None and whole is None:
                continue
            title = canvas.frame.title if canvas is not None else _title(pb, grid)
            frame = pictures.frame(pb, grid, scene, title)
            if canvas is not None:
                canvas.set_frame(frame)
            if whole is not None:
                whole.set_frame(frame)
        return scene


def _places(pb: Playback) -> dict[Grid, tuple[int, int]]:
    """Where each buffer goes (row, column of the panel; the work-groups are at 0, 0): the
    global buffers in a row, the local arrays below them; where more than fit, every buffer
    in rows of DESK_COLUMNS."""
    roles = {pb.trace.buffers[g.buffer].role: g for g in pb.grids if g.space == GLOBAL}
    locals_ = [g for g in pb.grids if g.space == LOCAL]
    if {"A", "B", "C"} <= set(roles) and len(roles) == 3 and len(locals_) <= 2:
        places = {roles["B"]: (0, 1), roles["A"]: (1, 0), roles["C"]: (1, 1)}
        for grid, place in zip(locals_, ((0, 2), (1, 2)), strict=False):
            places[grid] = place
        by_name = {g.name.lower(): g for g in locals_}
        if len(locals_) == 2 and any("b" in n for n in by_name):
            # the tile of B beside B, the tile of A beside C (A's row meets B's column)
            b_tile = next(g for n, g in by_name.items() if "b" in n)
            a_tile = next(g for g in locals_ if g is not b_tile)
            places[b_tile], places[a_tile] = (0, 2), (1, 2)
        return places
    places = {}
    globals_ = [g for g in pb.grids if g.space == GLOBAL]
    if max(len(globals_), len(locals_)) < DESK_COLUMNS:
        for i, grid in enumerate(globals_):
            places[grid] = (0, 1 + i)
        for i, grid in enumerate(locals_):
            places[grid] = (1, 1 + i)
        return places
    # More than fit beside the work-groups: in rows of DESK_COLUMNS, in reading order.
    for i, grid in enumerate(globals_ + locals_, start=1):
        places[grid] = divmod(i, DESK_COLUMNS)
    return places


def _title(pb: Playback, grid: Grid) -> str:
    """The buffer's name and shape ("local" before a local array's); a wrapped vector says
    so (its caption says how many elements a row)."""
    prefix = "local " if grid.space == LOCAL else ""
    shape = f"{grid.rows}×{grid.cols}" if grid.rows > 1 else f"{grid.cols}"
    wrapped = " (wrapped)" if wrap_width(grid, pb.trace.local_size) else ""
    return f"{prefix}{grid.name} {shape}{wrapped}"
