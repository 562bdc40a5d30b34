"""The Execution area: the NDRange grid; each buffer as focus and context (the selected
group's neighbourhood at element resolution with values and the tile grid, beside an
overview of the whole buffer); local memory with the values copied into it; the reads of the
selected work-item at every step; and a timeline to play or scrub, pass by pass.

Everything drawn is a selection of the recorded trace (see ``explorer.trace.playback``);
values come from the run's own arrays where the trace recorded none.
"""

from __future__ import annotations

import colorsys

import numpy as np
from PySide6.QtCore import QEvent, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFontDatabase, QPainter, QPen, QPixmap
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSizePolicy,
    QSlider,
    QVBoxLayout,
    QWidget,
)

from explorer.engine.records import RunResult
from explorer.gui.canvas import CellCanvas, rgba
from explorer.gui.source_view import CodeEditor
from explorer.gui.tiling_view import FocusCanvas, Frame, HeatScale, heat_colours, value_label
from explorer.gui.warp_view import WARP, WarpAccess, WarpView
from explorer.trace.grids import Box, Grid
from explorer.trace.playback import READS, WRITES, Playback
from explorer.trace.recorded import GLOBAL, LOCAL, OP_NAMES, Trace

EMPTY = rgba("#ecf0f1")
READ_C = rgba("#3498db")
WRITE_C = rgba("#e67e22")
BOTH_C = rgba("#8e44ad")
HOVER_C = rgba("#16a085")
MARK_C = rgba("#e74c3c")
WRITTEN_C = rgba("#d6dbdf")  # written, value unknown
PENDING_C = rgba("#fdf2e9")  # the group's output tile before the group writes it
VALUE_LOW, VALUE_HIGH = "#ffffff", "#85929e"
STEP_OUTLINE, WRITE_OUTLINE = "#c0392b", "#e67e22"
VALUE_RAMP = (
    rgba(VALUE_LOW).astype(np.float64)
    + (rgba(VALUE_HIGH).astype(np.float64) - rgba(VALUE_LOW).astype(np.float64))
    * np.linspace(0, 1, 256)[:, None]
).astype(np.uint8)
WHITE = rgba("#ffffff")
MARGIN = 1  # elements of context either side of the tile in a zoom window
STRIP = 48  # elements a window shows of a one-row buffer
# How cells are coloured, in the order the "Colour cells by" command cycles through them.
COLOURINGS = ("step", "value", "who")
COLOURING_TEXT = {
    "step": "cells: this step's reads and writes over the values",
    "value": "cells: by value only (the values the trace recorded where it has them)",
    "who": "cells: by the work-item of the group that last touched them (one hue each)",
}
SPEEDS = {"0.5×": 1000, "1×": 500, "2×": 250, "4×": 125, "8×": 60}


def _gradient(values: np.ndarray, lo: str = "#f4f6f7", hi: str = "#1b4f72") -> np.ndarray:
    a, b = rgba(lo).astype(np.float64), rgba(hi).astype(np.float64)
    top = float(values.max()) if values.size else 0.0
    t = values / top if top > 0 else np.zeros_like(values, dtype=np.float64)
    return (a + (b - a) * t[..., None]).astype(np.uint8)


def _hues(ids: np.ndarray, count: int) -> np.ndarray:
    table = np.array(
        [
            [int(255 * v) for v in colorsys.hsv_to_rgb((i * 0.61803) % 1.0, 0.55, 0.95)] + [255]
            for i in range(max(count, 1))
        ],
        dtype=np.uint8,
    )
    out = np.empty(ids.shape + (4,), dtype=np.uint8)
    out[:] = EMPTY
    ok = ids >= 0
    out[ok] = table[ids[ok] % len(table)]
    return out


class FrozenLabel(QWidget):
    """A rich-text label rendered once into a pixmap (rich text is costly to lay out on
    every repaint, and the legend never changes), shrunk to fit a narrow view."""

    def __init__(self, label: QLabel) -> None:
        super().__init__()
        label.resize(label.sizeHint())  # adjustSize() would cap it at 2/3 of the screen
        self.pixmap = label.grab()
        self.setToolTip(label.text())
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setFixedHeight(self.pixmap.height())

    def resizeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        scale = min(1.0, self.width() / max(self.pixmap.width(), 1))
        self.setFixedHeight(int(self.pixmap.height() * scale) + 1)

    def paintEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        scale = min(1.0, self.width() / max(self.pixmap.width(), 1))
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        painter.drawPixmap(
            QRectF(0, 0, self.pixmap.width() * scale, self.pixmap.height() * scale),
            self.pixmap,
            QRectF(self.pixmap.rect()),
        )


def _frozen(label: QLabel) -> FrozenLabel:
    return FrozenLabel(label)


class Timeline(QWidget):
    """Steps left to right; a thick mark at every barrier; the current step highlighted."""

    step_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.steps: list[tuple[int, int]] = []  # (phase, line)
        self.barriers: set[int] = set()
        self.current = 0
        self._cache: tuple | None = None  # type: ignore[type-arg]
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self._fit_font()
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)

    def _fit_font(self) -> None:
        """Bar and text one above the other at any type size (presenter mode scales it)."""
        self.setFixedHeight(34 + self.fontMetrics().height())

    def changeEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        if event.type() == QEvent.Type.FontChange:
            self._fit_font()
            self._cache = None
        super().changeEvent(event)

    def set_steps(self, steps: list[tuple[int, int]], barriers: list[int]) -> None:
        self.steps, self.barriers = steps, set(barriers)
        self._cache = None
        self.update()

    def set_current(self, index: int) -> None:
        self.current = index
        self.update()

    def _background(self) -> QPixmap:
        """Every step and barrier mark, drawn once per size and set of steps."""
        key = (self.width(), self.height(), len(self.steps), id(self.steps))
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        pixmap = QPixmap(self.size())
        pixmap.fill(self.palette().window().color())
        painter = QPainter(pixmap)
        n = max(len(self.steps), 1)
        w = self.width() / n
        for i, (phase, _line) in enumerate(self.steps):
            colour = QColor("#d6eaf8" if phase % 2 == 0 else "#fdebd0")
            painter.fillRect(QRectF(i * w, 8, max(w - 1, 1), 22), colour)
            if i in self.barriers:
                painter.setPen(QPen(QColor("#1b2631"), 3))
                painter.drawLine(int(i * w + w / 2), 2, int(i * w + w / 2), 32)
        painter.end()
        self._cache = (key, pixmap)
        return pixmap

    def paintEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        painter = QPainter(self)
        painter.drawPixmap(0, 0, self._background())
        if not self.steps:
            return
        w = self.width() / len(self.steps)
        painter.fillRect(QRectF(self.current * w, 8, max(w - 1, 1), 22), QColor("#c0392b"))
        painter.setPen(QColor("#1b2631"))
        phase, line = self.steps[self.current]
        painter.drawText(
            QRectF(0, 33, self.width(), self.height() - 33),
            Qt.AlignmentFlag.AlignLeft,
            f"step {self.current + 1} of {len(self.steps)} · phase {phase} · "
            f"line {line}   (| = barrier)",
        )

    def mousePressEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        if self.steps:
            index = int(event.position().x() / self.width() * len(self.steps))
            self.step_clicked.emit(max(0, min(index, len(self.steps) - 1)))

    mouseMoveEvent = mousePressEvent  # dragging scrubs


class ExecutionView(QWidget):
    """Play, step or scrub through the selected work-group's steps."""

    step_changed = Signal(int, int)  # phase, line
    group_requested = Signal(int, int, int)  # an untraced group to trace

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.playback: Playback | None = None
        self.source_lines: list[str] = []
        self.current = 0
        self.hover_wi: int | None = None
        self.selected_wi: int | None = None  # local linear id whose reads are drawn
        self.marked_wis: set[tuple[int, ...]] = set()
        self.marked_elements: dict[str, set[int]] = {}
        self.heat_mode = False
        self.colouring = "step"  # one of COLOURINGS
        self._tops: dict[int, float] = {}
        self._overviews: dict[tuple[int, bool], np.ndarray] = {}
        self._label_cache: dict[int, tuple[object, np.ndarray]] = {}
        self.timer = QTimer(self)
        self.timer.timeout.connect(self._tick)

        layout = QVBoxLayout(self)
        controls = QHBoxLayout()
        self.play_button = QPushButton("▶ Play (Space)")
        self.play_button.clicked.connect(self.toggle_play)
        back = QPushButton("◀ Step (←)")
        back.clicked.connect(self.step_back)
        forward = QPushButton("Step ▶ (→)")
        forward.clicked.connect(self.step_forward)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setMinimumWidth(60)
        self.slider.valueChanged.connect(self.set_step)
        self.speed = QComboBox()
        self.speed.addItems(list(SPEEDS))
        self.speed.setCurrentText("1×")
        self.speed.currentTextChanged.connect(lambda _: self._restart_timer())
        self.loop = QCheckBox("Loop")
        self.loop.setChecked(True)
        self.granularity = QComboBox()
        self.granularity.addItems(["Each pass", "Each line"])
        self.granularity.setToolTip(
            "Each pass: a loop body is one step per iteration (the walk along K, the inner "
            "product over a tile); each line: one step per source line and phase"
        )
        self.granularity.currentIndexChanged.connect(self._granularity_changed)
        self.warp_box = QCheckBox("Warp")
        self.warp_box.setToolTip(
            "The selected work-item's warp at this step: its 32 addresses, the 32-byte "
            "sectors they touch (global) or the banks they hit (local)"
        )
        self.warp_box.toggled.connect(self._warp_toggled)
        self.mode = QComboBox()
        self.mode.addItems(["Step", "Heat map"])
        self.mode.setToolTip("Heat map: global loads per element over every traced group")
        self.mode.currentIndexChanged.connect(self._mode_changed)
        for combo in (self.speed, self.granularity, self.mode):
            # as narrow as their shortest words: the view must not widen the window
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
            combo.setMinimumContentsLength(4)
        for w in (
            self.play_button,
            back,
            forward,
            self.slider,
            QLabel("Speed"),
            self.speed,
            self.loop,
            self.granularity,
            self.warp_box,
            self.mode,
        ):
            w.setFocusPolicy(Qt.FocusPolicy.ClickFocus if w is not self.slider else w.focusPolicy())
            controls.addWidget(w)
        controls.setStretchFactor(self.slider, 1)
        layout.addLayout(controls)
        self.caption = QLabel("")
        self.caption.setObjectName("stage-caption")
        self.caption.setWordWrap(True)
        self.caption.setVisible(False)
        layout.addWidget(self.caption)
        self.step_label = QLabel("Trace a kernel (Ctrl+T) to watch it run.")
        self.step_label.setObjectName("step-label")
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        font.setPointSize(12)
        self.step_label.setFont(font)  # a font, not a style sheet: cheaper to repaint
        self.step_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        layout.addWidget(self.step_label)
        self.reads_label = QLabel(" ")
        self.reads_label.setObjectName("reads-label")
        self.reads_label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        layout.addWidget(self.reads_label)
        middle = QHBoxLayout()
        self.canvases_area = QGridLayout()
        self.canvases_area.setSpacing(6)
        middle.addLayout(self.canvases_area, 5)
        self.code = CodeEditor()
        self.code.setMinimumWidth(200)
        self.code.setMaximumWidth(380)
        middle.addWidget(self.code, 1)
        layout.addLayout(middle, 1)
        self.warp_view = WarpView()
        self.warp_view.setVisible(False)
        layout.addWidget(self.warp_view)
        self.heat_scale = HeatScale()
        self.heat_scale.setVisible(False)
        layout.addWidget(self.heat_scale)
        self.timeline = Timeline()
        self.timeline.step_clicked.connect(self.set_step)
        layout.addWidget(self.timeline)
        legend = QLabel(
            "<span style='color:#3498db'>■</span> read this step &nbsp; "
            "<span style='color:#e67e22'>■</span> written &nbsp; "
            "<span style='color:#8e44ad'>■</span> both &nbsp; "
            "<span style='color:#16a085'>■</span> the selected work-item (click a cell to pick "
            "another) &nbsp; <span style='color:#c0392b'>□</span> the group's tile this step "
            "&nbsp; <span style='color:#e67e22'>□</span> the group's tile of the output<br>"
            "darker = larger value · thick lines: the tile grid · local memory: the values "
            "copied in (faded: an earlier phase) · work-groups: darker started later"
        )
        self.legend = _frozen(legend)
        layout.addWidget(self.legend)
        self.info = QLabel(" ")
        self.info.setWordWrap(True)
        self.info.setMinimumHeight(40)
        layout.addWidget(self.info)
        self.grid_canvas = CellCanvas("Work-groups")
        self.grid_canvas.clicked.connect(self._group_clicked)
        self.grid_canvas.hovered.connect(self._group_hovered)
        self.canvases: dict[int, FocusCanvas] = {}

    # -- set up ----------------------------------------------------------------------
    def set_playback(
        self,
        playback: Playback,
        source: str,
        arrays: dict[str, np.ndarray] | None = None,
    ) -> None:
        self.pause()
        self.playback = playback
        if arrays is not None:
            playback.set_arrays(arrays)
        playback.set_by_iteration(self.granularity.currentIndex() == 0)
        self.source_lines = source.splitlines()
        if self.code.toPlainText() != source:
            self.code.setPlainText(source)
        self.marked_wis, self.marked_elements = set(), {}
        self._tops, self._overviews, self._label_cache = {}, {}, {}
        lx, ly = (list(playback.trace.local_size) + [1, 1])[:2]
        self.selected_wi = lx // 2 + lx * (ly // 2)
        self._clear_canvases()
        self.canvases_area.addWidget(self.grid_canvas, 0, 0)
        for grid, (row, col) in self._places(playback).items():
            prefix = "local " if grid.space == LOCAL else ""
            canvas = FocusCanvas(prefix + self._title(grid))
            canvas.hovered.connect(lambda r, c, g=grid: self._cell_hovered(g, r, c))
            canvas.clicked.connect(lambda r, c, g=grid: self._cell_clicked(g, r, c))
            self.canvases[grid.buffer] = canvas
            self.canvases_area.addWidget(canvas, row, col)
        used = {col for _row, col in self._places(playback).values()} | {0}
        for i in range(4):
            self.canvases_area.setRowStretch(i, 1 if i < 2 else 0)
            self.canvases_area.setColumnStretch(i, 1 if i in used else 0)
        self._draw_groups()
        self._reset_steps()

    def set_arrays(self, arrays: dict[str, np.ndarray]) -> None:
        """The run's inputs and output (role → array): the values drawn in the cells."""
        if self.playback is None:
            return
        held = self.playback.arrays
        if held.keys() == arrays.keys() and all(held[k] is arrays[k] for k in arrays):
            return  # the playback was made with these: nothing on screen changes
        self.playback.set_arrays(arrays)
        self._tops, self._overviews, self._label_cache = {}, {}, {}
        self.redraw()

    def clear(self, message: str = "Trace a kernel (Ctrl+T) to watch it run.") -> None:
        """Forget the trace (the configuration changed): nothing stale stays on screen."""
        self.pause()
        self.playback = None
        self.marked_wis, self.marked_elements = set(), {}
        self.hover_wi = None
        self._clear_canvases()
        self.timeline.set_steps([], [])
        self.slider.blockSignals(True)
        self.slider.setRange(0, 0)
        self.slider.blockSignals(False)
        self.code.mark_lines([], "#f9e79f")
        self.step_label.setText(message)
        self.reads_label.setText(" ")
        self.info.setText(" ")

    def set_caption(self, text: str) -> None:
        """A line above the animation that says what this stage of a talk shows."""
        self.caption.setText(text)
        self.caption.setVisible(bool(text))

    def _clear_canvases(self) -> None:
        while self.canvases_area.count():
            item = self.canvases_area.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None and widget is not self.grid_canvas:
                widget.deleteLater()
        self.canvases = {}

    def _places(self, pb: Playback) -> dict[Grid, tuple[int, int]]:
        """Where each buffer goes: for A×B=C the textbook picture (B above C, A to its left,
        the local tiles beside them); otherwise the globals in a row, local memory below."""
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
        for i, grid in enumerate(globals_):
            places[grid] = (0, 1 + i)
        for i, grid in enumerate(locals_):
            places[grid] = (1, 1 + i)
        return places

    def _title(self, grid: Grid) -> str:
        shape = f"{grid.rows}×{grid.cols}" if grid.rows > 1 else f"{grid.cols}"
        return f"{grid.name} {shape}"

    def _reset_steps(self) -> None:
        pb = self.playback
        assert pb is not None
        steps = [(s.phase, s.line) for s in pb.steps]
        self.timeline.set_steps(steps, pb.barrier_steps())
        self.slider.blockSignals(True)
        self.slider.setRange(0, max(len(steps) - 1, 0))
        self.slider.blockSignals(False)
        self.current = -1
        self.set_step(0)

    def _draw_groups(self) -> None:
        pb = self.playback
        assert pb is not None
        gx, gy, gz = pb.num_groups
        rank = pb.dispatch_rank[: gx * gy].reshape(gy, gx).astype(np.float64)
        pixels = _gradient(np.where(rank >= 0, rank + 1, 0))
        traced = np.zeros(gx * gy, dtype=bool)
        for g in pb.traced_groups:
            if g < gx * gy:
                traced[g] = True
        pixels[~traced.reshape(gy, gx), 3] = 90
        self.grid_canvas.set_pixels(pixels)
        if pb.group is not None:
            x, y, _ = pb.group
            self.grid_canvas.outlines = [(y, y + 1, x, x + 1, "#e74c3c")]
        self.grid_canvas.caption = (
            f"group {pb.group} · {len(pb.traced_groups)}/{gx * gy * gz} traced"
        )

    # -- stepping ----------------------------------------------------------------------
    @property
    def steps(self) -> int:
        return len(self.playback.steps) if self.playback else 0

    def set_step(self, index: int) -> None:
        if not self.playback or not self.playback.steps:
            return
        index = max(0, min(int(index), self.steps - 1))
        self.current = index
        self.slider.blockSignals(True)
        self.slider.setValue(index)
        self.slider.blockSignals(False)
        self.timeline.set_current(index)
        step = self.playback.steps[index]
        self.redraw()
        text = (
            self.source_lines[step.line - 1].strip()
            if 0 < step.line <= len(self.source_lines)
            else ""
        )
        self.step_label.setText(f"phase {step.phase} · line {step.line}:  {text}")
        self.code.mark_lines([step.line], "#f9e79f")
        self.step_changed.emit(step.phase, step.line)

    def step_forward(self) -> None:
        if self.current + 1 < self.steps:
            self.set_step(self.current + 1)
        elif self.loop.isChecked():
            self.set_step(0)
        else:
            self.pause()

    def step_back(self) -> None:
        self.set_step(max(0, self.current - 1))

    def first_step(self) -> None:
        self.set_step(0)

    def last_step(self) -> None:
        self.set_step(self.steps - 1)

    def play(self) -> None:
        if self.steps:
            self.timer.start(SPEEDS.get(self.speed.currentText(), 500))
            self.play_button.setText("❚❚ Pause (Space)")

    def pause(self) -> None:
        self.timer.stop()
        self.play_button.setText("▶ Play (Space)")

    def toggle_play(self) -> None:
        self.pause() if self.timer.isActive() else self.play()

    def _restart_timer(self) -> None:
        """A new speed takes effect at once while playing."""
        if self.timer.isActive():
            self.timer.start(SPEEDS.get(self.speed.currentText(), 500))

    def _tick(self) -> None:
        self.step_forward()

    def _mode_changed(self, index: int) -> None:
        self.heat_mode = index == 1
        self.heat_scale.setVisible(self.heat_mode)
        self.redraw()

    def _warp_toggled(self, on: bool) -> None:
        self.warp_view.setVisible(on)
        self.redraw()

    def _draw_warp(self, who: int | None) -> None:
        """The selected work-item's warp at this step, one strip per access site."""
        pb = self.playback
        if pb is None or who is None or not self.warp_view.isVisibleTo(self):
            return
        accesses = []
        for site, offsets, size in pb.warp_offsets(self.current, who // WARP):
            info = pb.trace.sites[site]
            buffer = pb.trace.buffers[info.buffer] if info.buffer >= 0 else None
            local = buffer is not None and buffer.space == LOCAL
            title = f"line {info.line} {info.text or (buffer.name if buffer else '?')}"
            accesses.append(WarpAccess(title, local, offsets, size))
        self.warp_view.set_accesses(accesses)

    def _granularity_changed(self, index: int) -> None:
        pb = self.playback
        if pb is None:
            return
        phase = pb.steps[self.current].phase if pb.steps else 0
        pb.set_by_iteration(index == 0)
        self._reset_steps()
        step = pb.first_step_of(phase)
        if step is not None:
            self.set_step(step)

    def keyPressEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        key = event.key()
        if key == Qt.Key.Key_Space:
            self.toggle_play()
        elif key == Qt.Key.Key_Right:
            self.step_forward()
        elif key == Qt.Key.Key_Left:
            self.step_back()
        elif key == Qt.Key.Key_Home:
            self.first_step()
        elif key == Qt.Key.Key_End:
            self.last_step()
        else:
            super().keyPressEvent(event)

    def cycle_colouring(self) -> None:
        """Colour every buffer's cells by this step's accesses (the default), by value, or
        by the work-item that last touched them; the next of the three each time."""
        self.colouring = COLOURINGS[(COLOURINGS.index(self.colouring) + 1) % len(COLOURINGS)]
        self.info.setText("Colouring " + COLOURING_TEXT[self.colouring])
        self.redraw()

    # -- drawing -----------------------------------------------------------------------
    def highlighted(self, grid: Grid) -> tuple[np.ndarray, np.ndarray]:
        """(read, write) cells of the current step for one buffer (the binned grid)."""
        assert self.playback is not None
        return self.playback.cell_masks(grid, self.playback.step_records(self.current))

    def picture(self, buffer: int) -> np.ndarray:
        """The zoom window's picture of a buffer as drawn now: (rows, cols, 4)."""
        return self.canvases[buffer].pixels.copy()

    def zoom_window(self, buffer: int) -> Box:
        """The buffer's elements the zoom window shows now: (row0, row1, col0, col1)."""
        return self.canvases[buffer].frame.window

    def _window(self, grid: Grid) -> Box:
        pb = self.playback
        assert pb is not None
        lx, ly = (list(pb.trace.local_size) + [1, 1])[:2]
        if grid.rows > 1:
            zr, zc = min(grid.rows, ly + 2 * MARGIN), min(grid.cols, lx + 2 * MARGIN)
            tr, tc = ly, lx
        else:
            zr, zc = 1, min(grid.cols, STRIP)
            tr, tc = 1, lx
        if grid.space == LOCAL and grid.rows <= 40 and grid.cols <= 40:
            zr, zc = grid.rows, grid.cols
        box = pb.focus(grid, self.current)
        if grid.space == GLOBAL and pb.trace.buffers[grid.buffer].is_input is False:
            written = pb.extent(grid)[1]
            box = written or box
        if box is None:
            return 0, zr, 0, zc
        r0 = _snap(box[0], tr, zr, grid.rows)
        c0 = _snap(box[2], tc, zc, grid.cols)
        return r0, r0 + zr, c0, c0 + zc

    def _top(self, grid: Grid, values: np.ndarray | None) -> float:
        if grid.buffer not in self._tops:
            self._tops[grid.buffer] = _finite_top(values) if values is not None else 0.0
        return self._tops[grid.buffer]

    def _overview(self, grid: Grid, values: np.ndarray | None) -> np.ndarray | None:
        pb = self.playback
        assert pb is not None
        key = (grid.buffer, self.heat_mode)
        if key not in self._overviews:
            data = pb.element_heat(grid) if self.heat_mode else values
            if data is None:
                return None
            mean = grid.cell_means(data)
            self._overviews[key] = (
                heat_colours(mean)
                if self.heat_mode
                else _value_colours(mean, self._top(grid, values))
            )
        return self._overviews[key]

    def redraw(self) -> None:
        pb = self.playback
        if pb is None or not pb.steps:
            return
        step = pb.steps[self.current]
        records = pb.step_records(self.current)
        who = self.hover_wi if self.hover_wi is not None else self.selected_wi
        wi_now, wi_line = pb.work_item_step(who, self.current) if who is not None else (None, None)
        # A selected finding's work-items (those of the shown group): their accesses in this
        # phase, marked like the finding's elements.
        lx, ly = (list(pb.trace.local_size) + [1, 1])[:2]
        marked = [w for w in self.marked_wis if tuple(w[:3]) == tuple(pb.group or ())]
        marked_recs = (
            np.concatenate(
                [pb.work_item_records(w[3] + lx * (w[4] + ly * w[5]), step.phase) for w in marked]
            )
            if marked
            else None
        )
        local_values: dict[int, np.ndarray] = {}
        buffers, in_bounds = pb.buffer[records], ~pb.oob[records]
        for grid in pb.grids:
            canvas = self.canvases.get(grid.buffer)
            if canvas is None:
                continue
            window = self._window(grid)
            r0, r1, c0, c1 = window
            mine = records[(buffers == grid.buffer) & in_bounds]
            reads, writes = pb.window_masks(grid, mine, window)
            outlines: list[tuple[Box, str, float]] = []
            hidden = None
            labels_vals: np.ndarray | None
            if grid.space == LOCAL:
                value, writer, fresh, _source = pb.local_contents(grid, self.current)
                local_values[grid.buffer] = value
                vals = value[r0:r1, c0:c1]
                w = writer[r0:r1, c0:c1]
                top = self._top(grid, pb.values(grid)) or _finite_top(value)
                pixels = _value_colours(vals, top)
                pixels[(w >= 0) & ~np.isfinite(vals)] = WRITTEN_C
                pixels[w < 0] = EMPTY
                stale = ~(reads | writes | fresh[r0:r1, c0:c1])
                pixels[stale] = _mix(pixels[stale], WHITE, 0.55)
                pixels[reads & ~writes & (w < 0)] = MARK_C  # read before any write
                labels_vals = np.where(w >= 0, vals, np.nan)
                heat_labels = False
            elif self.heat_mode:
                counts = pb.element_heat(grid)[r0:r1, c0:c1]
                pixels = heat_colours(counts)
                labels_vals = counts.astype(np.float64)
                heat_labels = True
            else:
                buffer_values = pb.values(grid)
                window_values = buffer_values[r0:r1, c0:c1] if buffer_values is not None else None
                pixels = (
                    _value_colours(window_values, self._top(grid, buffer_values))
                    if window_values is not None
                    else np.tile(EMPTY, (r1 - r0, c1 - c0, 1))
                )
                labels_vals = window_values
                heat_labels = False
                _touched, written_box = pb.extent(grid)
                if written_box is not None and not pb.trace.buffers[grid.buffer].is_input:
                    # The group's tile of the output: marked from the start, its values
                    # appear as the group writes them; elsewhere the other groups' results.
                    outlines.append((written_box, WRITE_OUTLINE, 3.0))
                    inside = _box_mask(written_box, window)
                    done = pb.written_before(grid, self.current, window)
                    hidden = inside & ~done
                    pixels[hidden] = PENDING_C
                    partial = pb.partial_sums(grid, self.current, window)
                    if partial is not None and labels_vals is not None:
                        # Accumulating: the sums so far of the products each work-item
                        # formed from the values it read; the IOU forms in C as k advances.
                        forming = hidden & np.isfinite(partial)
                        shown = _value_colours(partial, self._top(grid, buffer_values))
                        pixels[forming] = _mix(shown[forming], PENDING_C, 0.35)
                        labels_vals = np.where(forming, partial, labels_vals)
                        hidden = hidden & ~forming
                    stored = pb.written_values(grid, self.current, window)
                    if stored is not None and labels_vals is not None:
                        # What the group's writes stored so far, as recorded: a sum that is
                        # accumulated in the output itself shows as it forms.
                        known = inside & np.isfinite(stored)
                        shown = _value_colours(stored, self._top(grid, buffer_values))
                        pixels[known] = shown[known]
                        labels_vals = np.where(known, stored, labels_vals)
                    others = ~inside
                    pixels[others] = _mix(pixels[others], WHITE, 0.5)
            if self.colouring == "value" and labels_vals is not None and not heat_labels:
                top = self._top(grid, pb.values(grid)) or _finite_top(labels_vals)
                pixels = _value_colours(labels_vals, top)
                pixels[~np.isfinite(labels_vals)] = EMPTY
            elif self.colouring == "who":
                who_touched = pb.touching_window(grid, self.current, window)
                pixels = _hues(who_touched, int(np.prod(pb.trace.local_size)))
            elif not self.heat_mode or grid.space == LOCAL:
                _tint(pixels, reads & ~writes, READ_C, 0.6)
                _tint(pixels, writes & ~reads, WRITE_C, 0.6)
                _tint(pixels, reads & writes, BOTH_C, 0.6)
            if wi_line is not None and wi_now is not None:
                lr, lw = pb.window_masks(grid, wi_line, window)
                _tint(pixels, lr | lw, HOVER_C, 0.3)
                nr, nw = pb.window_masks(grid, wi_now, window)
                _tint(pixels, nr | nw, HOVER_C, 0.8)
            if marked_recs is not None:
                mr, mw = pb.window_masks(grid, marked_recs, window)
                pixels[mr | mw] = MARK_C
            for element in self.marked_elements.get(grid.name, ()):
                rows, cols = grid.element_rc(np.array([element]))
                er, ec = int(rows[0]) - r0, int(cols[0]) - c0
                if 0 <= er < r1 - r0 and 0 <= ec < c1 - c0:
                    pixels[er, ec] = MARK_C
            box = pb.focus(grid, self.current)
            if (reads | writes).any() or (box is not None and grid.space == GLOBAL):
                touched = self._step_box(grid, mine)
                if touched is not None:
                    outlines.append((touched, STEP_OUTLINE, 3.0))
            labels, key = self._labels(grid, window, labels_vals, hidden, heat_labels)
            canvas.set_frame(
                Frame(
                    title=canvas.frame.title,
                    shape=(grid.rows, grid.cols),
                    window=window,
                    pixels=pixels,
                    tile=(ly, lx) if grid.rows > 1 else (1, lx),
                    labels=labels,
                    labels_key=key,
                    overview=self._overview(grid, pb.values(grid))
                    if grid.space == GLOBAL
                    else None,
                    overview_key=(grid.buffer, self.heat_mode, len(self._overviews)),
                    outlines=outlines,
                    caption=self._caption(grid, mine, window),
                )
            )
        self._describe_reads(who, wi_now, local_values)
        self._draw_warp(who)

    def _step_box(self, grid: Grid, records: np.ndarray) -> Box | None:
        pb = self.playback
        assert pb is not None
        mine = records
        if mine.size == 0:
            return None
        r, c = grid.element_rc(pb.index[mine])
        return int(r.min()), int(r.max()) + 1, int(c.min()), int(c.max()) + 1

    def _labels(
        self,
        grid: Grid,
        window: Box,
        values: np.ndarray | None,
        hidden: np.ndarray | None,
        heat: bool,
    ) -> tuple[np.ndarray | None, object]:
        if values is None:
            return None, None
        shown = values if hidden is None else np.where(hidden, np.nan, values)
        key = (grid.buffer, window, heat, shown.tobytes())
        cached = self._label_cache.get(grid.buffer)
        if cached is not None and cached[0] == key:
            return cached[1], key
        labels = np.array([value_label(float(v)) for v in shown.ravel()], dtype=object).reshape(
            shown.shape
        )
        self._label_cache[grid.buffer] = (key, labels)
        return labels, key

    def _caption(self, grid: Grid, records: np.ndarray, window: Box) -> str:
        pb = self.playback
        assert pb is not None
        r0, r1, c0, c1 = window
        where = f"[{r0}:{r1}][{c0}:{c1}]" if grid.rows > 1 else f"[{c0}:{c1}]"
        if self.heat_mode and grid.space == GLOBAL:
            heat = pb.element_heat(grid)
            return f"{where} · up to {int(heat.max())} loads per element"
        mine = records  # this buffer's records of the step
        ops = pb.op[mine]
        read = np.unique(pb.index[mine[READS[ops]]]).size
        written = np.unique(pb.index[mine[WRITES[ops]]]).size
        return f"{where} · {read} read, {written} written"

    def _describe_reads(
        self, who: int | None, now: np.ndarray | None, local_values: dict[int, np.ndarray]
    ) -> None:
        """The selected work-item's accesses at this step, with their values."""
        pb = self.playback
        if pb is None or who is None or now is None:
            self.reads_label.setText(" ")
            return
        lx, ly = (list(pb.trace.local_size) + [1, 1])[:2]
        local = (who % lx, (who // lx) % ly)
        parts = []
        for r in now[:6]:
            b = int(pb.buffer[r])
            if b < 0 or bool(pb.oob[r]):
                continue
            grid = pb.grids[b]
            row, col = grid.element_rc(np.array([pb.index[r]]))
            row_i, col_i = int(row[0]), int(col[0])
            where = f"{grid.name}[{row_i}][{col_i}]" if grid.rows > 1 else f"{grid.name}[{col_i}]"
            value = float("nan")
            if b in local_values and row_i < grid.rows and col_i < grid.cols:
                value = float(local_values[b][row_i, col_i])
            elif (values := pb.values(grid)) is not None:
                value = float(values[row_i, col_i])
            op = OP_NAMES.get(int(pb.op[r]), "?")
            text = value_label(value)
            parts.append(f"{op} {where}" + (f" = {text}" if text else ""))
        detail = ", ".join(parts) if parts else "no access at this step"
        self.reads_label.setText(f"work-item {local} of group {pb.group}: {detail}")

    # -- hover, clicks, findings -------------------------------------------------------------
    def _cell_hovered(self, grid: Grid, row: int, col: int) -> None:
        pb = self.playback
        if pb is None or not pb.steps:
            return
        if row < 0:
            self.hover_wi = None
            self.info.setText(" ")
            self.redraw()
            return
        step = pb.steps[self.current]
        cell = int(grid.cell_of(np.array([grid.index_at(row, col)]))[0])
        touches = pb.touching(grid, cell, step.phase) if cell >= 0 else []
        where = f"{grid.name}[{row}][{col}]" if grid.rows > 1 else f"{grid.name}[{col}]"
        origin = ""
        if grid.space == LOCAL:
            origin = pb.local_origin(grid, self.current, row, col)
        if not touches:
            self.info.setText(
                f"{where}{origin}: not touched by group {pb.group} in phase {step.phase}"
            )
            self.hover_wi = None
        else:
            parts = [f"work-item {w} line {line} {op}" for w, line, op in touches[:6]]
            more = f" … and {len(touches) - 6} more" if len(touches) > 6 else ""
            self.info.setText(f"{where}{origin} in phase {step.phase}: " + "; ".join(parts) + more)
            lx, ly = (list(pb.trace.local_size) + [1, 1])[:2]
            first = touches[0][0]
            self.hover_wi = first[0] + lx * (first[1] + ly * first[2])
        self.redraw()

    def _cell_clicked(self, grid: Grid, row: int, col: int) -> None:
        """A click on a cell some work-item of the group touched selects that work-item:
        its reads are drawn at every step from now on."""
        pb = self.playback
        if pb is None or not pb.steps:
            return
        recs = pb.group_records(grid)
        hit = recs[pb.index[recs] == grid.index_at(row, col)]
        if hit.size == 0:
            return
        writes = hit[WRITES[pb.op[hit]]]
        chosen = writes[0] if writes.size else hit[0]
        self.selected_wi = int(pb.local_linear[pb.wi[chosen]])
        self.hover_wi = None
        self.redraw()

    def _group_hovered(self, cell: int) -> None:
        pb = self.playback
        if pb is None or cell < 0:
            return
        gx = pb.num_groups[0]
        group = (cell % gx, cell // gx, 0)
        rank = int(pb.dispatch_rank[pb.group_index(group)])
        traced = "traced" if pb.is_traced(group) else "not traced: click to trace"
        self.info.setText(f"work-group {group}: started {rank + 1}. ({traced})")

    def _group_clicked(self, cell: int) -> None:
        pb = self.playback
        if pb is None:
            return
        gx = pb.num_groups[0]
        group = (cell % gx, cell // gx, 0)
        if pb.select_group(group):
            self._draw_groups()
            self._reset_steps()
        else:
            self.group_requested.emit(*group)

    def select_group(self, group: tuple[int, int, int]) -> bool:
        if self.playback is None or not self.playback.select_group(group):
            return False
        self._draw_groups()
        self._reset_steps()
        return True

    def show_finding(self, finding) -> None:  # type: ignore[no-untyped-def]
        """Jump to the finding's phase and line; mark its work-items and elements."""
        pb = self.playback
        if pb is None:
            return
        for w in finding.work_items:
            group = tuple(int(v) for v in w[:3])
            if pb.group != group and pb.is_traced(group):
                self.select_group(group)  # type: ignore[arg-type]
                break
        self.marked_wis = {tuple(w) for w in finding.work_items}
        self.marked_elements = {finding.buffer: set(finding.elements)} if finding.buffer else {}
        target = pb.first_step_of(finding.phase or 0, finding.line)
        if target is not None:
            self.set_step(target)
        else:
            self.redraw()


def run_arrays(result: RunResult, trace: Trace | None) -> dict[str, np.ndarray]:
    """The arrays a run carries, by role: its inputs and, under the output's role, its
    output (what the execution view draws as values while ``Trace.values`` is empty)."""
    arrays = dict(result.inputs or {})
    if result.output is not None:
        role = trace.output_role if trace is not None else None
        if role is None and trace is not None:
            written = [b.role for b in trace.buffers if b.role and not b.is_input]
            role = written[0] if len(written) == 1 else None
        if role:
            arrays[role] = result.output
    return arrays


def _snap(start: int, tile: int, size: int, total: int) -> int:
    """The window's first row (or column): the tile holding ``start``, with a margin of
    context either side, inside the buffer; the window moves a tile at a time."""
    if size >= total:
        return 0
    margin = (size - tile) // 2 if size > tile else 0
    origin = (start // max(tile, 1)) * max(tile, 1) - margin
    return max(0, min(origin, total - size))


def _value_colours(values: np.ndarray, top: float) -> np.ndarray:
    """White for 0, darker for larger magnitudes; unknown (NaN) values white."""
    t = np.abs(np.nan_to_num(values)) / top if top > 0 else np.zeros(values.shape)
    return VALUE_RAMP[(np.clip(t, 0, 1) * 255).astype(np.intp)]


def _finite_top(values: np.ndarray) -> float:
    """The largest magnitude among the finite values (0 without any)."""
    flat = np.asarray(values).ravel()
    if flat.size == 0:
        return 0.0
    hi, lo = float(np.fmax.reduce(flat)), float(np.fmin.reduce(flat))  # NaN skipped
    if np.isfinite(hi) and np.isfinite(lo):
        return max(abs(hi), abs(lo))
    finite = np.abs(flat[np.isfinite(flat)])
    return float(finite.max()) if finite.size else 0.0


def _mix(pixels: np.ndarray, colour: np.ndarray, amount: float) -> np.ndarray:
    return (pixels * (1 - amount) + colour * amount).astype(np.uint8)


def _tint(pixels: np.ndarray, mask: np.ndarray, colour: np.ndarray, amount: float) -> None:
    if mask.any():
        pixels[mask] = _mix(pixels[mask], colour, amount)


def _box_mask(box: Box, window: Box) -> np.ndarray:
    r0, r1, c0, c1 = window
    b0, b1, d0, d1 = box
    rows = np.arange(r0, r1)[:, None]
    cols = np.arange(c0, c1)[None, :]
    return (rows >= b0) & (rows < b1) & (cols >= d0) & (cols < d1)
