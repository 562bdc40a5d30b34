"""The Execution area: the NDRange grid, the buffers with the current step's accesses, local
memory coloured by the work-item that wrote it, and a phase timeline to play or scrub.

Everything drawn is a selection of the recorded trace (see ``explorer.trace.playback``).
"""

from __future__ import annotations

import colorsys

import numpy as np
from PySide6.QtCore import QRectF, Qt, QTimer, Signal
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

from explorer.gui.canvas import CellCanvas, rgba
from explorer.gui.source_view import CodeEditor
from explorer.trace.playback import Grid, Playback
from explorer.trace.records import GLOBAL, LOCAL

EMPTY = rgba("#ecf0f1")
READ_C = rgba("#3498db")
WRITE_C = rgba("#e67e22")
BOTH_C = rgba("#8e44ad")
HOVER_C = rgba("#16a085")
MARK_C = rgba("#e74c3c")
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


def _frozen(label: QLabel) -> QLabel:
    """A rich-text label rendered once into a pixmap: rich text is costly to lay out on
    every repaint, and the legend never changes."""
    label.adjustSize()
    pixmap = label.grab()
    frozen = QLabel()
    frozen.setPixmap(pixmap)
    frozen.setToolTip(label.text())
    return frozen


class Timeline(QWidget):
    """Steps left to right; a thick mark at every barrier; the current step highlighted."""

    step_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.steps: list[tuple[int, int]] = []  # (phase, line)
        self.barriers: set[int] = set()
        self.current = 0
        self._cache: tuple | None = None  # type: ignore[type-arg]
        self.setMinimumHeight(46)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)

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
                painter.drawLine(int(i * w + w / 2), 2, int(i * w + w / 2), 36)
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
            QRectF(0, 30, self.width(), 16),
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
        self.marked_wis: set[tuple[int, ...]] = set()
        self.marked_elements: dict[str, set[int]] = {}
        self.heat_mode = False
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
        self.mode = QComboBox()
        self.mode.addItems(["Step", "Heat map"])
        self.mode.setToolTip("Heat map: global loads per element over every traced group")
        self.mode.currentIndexChanged.connect(self._mode_changed)
        for w in (
            self.play_button,
            back,
            forward,
            self.slider,
            QLabel("Speed"),
            self.speed,
            self.loop,
            self.mode,
        ):
            controls.addWidget(w)
        controls.setStretchFactor(self.slider, 1)
        layout.addLayout(controls)
        self.step_label = QLabel("Trace a kernel (Ctrl+T) to watch it run.")
        self.step_label.setObjectName("step-label")
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        font.setPointSize(12)
        self.step_label.setFont(font)  # a font, not a style sheet: cheaper to repaint
        layout.addWidget(self.step_label)
        middle = QHBoxLayout()
        self.canvases_area = QGridLayout()
        middle.addLayout(self.canvases_area, 3)
        self.code = CodeEditor()
        self.code.setMinimumWidth(260)
        middle.addWidget(self.code, 2)
        layout.addLayout(middle, 1)
        self.timeline = Timeline()
        self.timeline.step_clicked.connect(self.set_step)
        layout.addWidget(self.timeline)
        legend = QLabel(
            "<span style='color:#3498db'>■</span> read &nbsp; "
            "<span style='color:#e67e22'>■</span> written &nbsp; "
            "<span style='color:#8e44ad'>■</span> both &nbsp; "
            "<span style='color:#16a085'>■</span> hovered work-item &nbsp; "
            "<span style='color:#c0392b'>□</span> the group's tile this step<br>"
            "local memory: one colour per writing work-item (faded: written in an earlier "
            "phase)<br>work-groups: darker started later, faded not traced"
        )
        layout.addWidget(_frozen(legend))
        self.info = QLabel(" ")
        self.info.setWordWrap(True)
        self.info.setMinimumHeight(40)
        layout.addWidget(self.info)
        self.grid_canvas = CellCanvas("Work-groups")
        self.grid_canvas.clicked.connect(self._group_clicked)
        self.grid_canvas.hovered.connect(self._group_hovered)
        self.canvases: dict[int, CellCanvas] = {}

    # -- set up ----------------------------------------------------------------------
    def set_playback(self, playback: Playback, source: str) -> None:
        self.pause()
        self.playback = playback
        self.source_lines = source.splitlines()
        if self.code.toPlainText() != source:
            self.code.setPlainText(source)
        self.marked_wis, self.marked_elements = set(), {}
        while self.canvases_area.count():
            item = self.canvases_area.takeAt(0)
            if item.widget() is not None and item.widget() is not self.grid_canvas:
                item.widget().deleteLater()
        self.canvases = {}
        self.canvases_area.addWidget(self.grid_canvas, 0, 0)
        globals_ = [g for g in playback.grids if g.space == GLOBAL]
        locals_ = [g for g in playback.grids if g.space == LOCAL]
        for i, grid in enumerate(globals_):
            canvas = CellCanvas(self._title(grid))
            canvas.hovered.connect(lambda cell, g=grid: self._cell_hovered(g, cell))
            self.canvases[grid.buffer] = canvas
            self.canvases_area.addWidget(canvas, 0, 1 + i)
        for i, grid in enumerate(locals_):
            canvas = CellCanvas("local " + self._title(grid))
            canvas.hovered.connect(lambda cell, g=grid: self._cell_hovered(g, cell))
            self.canvases[grid.buffer] = canvas
            self.canvases_area.addWidget(canvas, 1, 1 + i)
        self._draw_groups()
        self._reset_steps()

    def _title(self, grid: Grid) -> str:
        shape = f"{grid.rows}×{grid.cols}" if grid.rows > 1 else f"{grid.cols}"
        agg = "" if (grid.cell_rows, grid.cell_cols) == (grid.rows, grid.cols) else " (binned)"
        return f"{grid.name} {shape}{agg}"

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
        self.redraw()
        step = self.playback.steps[index]
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
        self.redraw()

    def keyPressEvent(self, event) -> None:  # type: ignore[no-untyped-def]
        key = event.key()
        if key == Qt.Key.Key_Space:
            self.toggle_play()
        elif key == Qt.Key.Key_Right:
            self.step_forward()
        elif key == Qt.Key.Key_Left:
            self.step_back()
        else:
            super().keyPressEvent(event)

    # -- drawing -----------------------------------------------------------------------
    def highlighted(self, grid: Grid) -> tuple[np.ndarray, np.ndarray]:
        """(read, write) cells of the current step for one buffer."""
        assert self.playback is not None
        return self.playback.cell_masks(grid, self.playback.step_records(self.current))

    def picture(self, buffer: int) -> np.ndarray:
        return self.canvases[buffer].pixels.copy()

    def redraw(self) -> None:
        pb = self.playback
        if pb is None or not pb.steps:
            return
        step = pb.steps[self.current]
        records = pb.step_records(self.current)
        hover_recs = (
            pb.work_item_records(self.hover_wi, step.phase) if self.hover_wi is not None else None
        )
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
        for grid in pb.grids:
            canvas = self.canvases.get(grid.buffer)
            if canvas is None:
                continue
            if grid.space == LOCAL:
                writer, fresh = pb.local_writers(grid, self.current)
                pixels = _hues(writer, int(np.prod(pb.trace.local_size)))
            elif self.heat_mode:
                pixels = _gradient(pb.heat(grid))
            else:
                pixels = np.empty((grid.cell_rows, grid.cell_cols, 4), dtype=np.uint8)
                pixels[:] = EMPTY
            reads, writes = pb.cell_masks(grid, records)
            if grid.space == LOCAL:
                # Each cell in the colour of the work-item whose value it holds; faded unless
                # written in this phase or touched by this step.
                pixels[~(reads | writes | fresh), 3] = 90
                pixels[reads & ~writes & (writer < 0)] = MARK_C  # read before any write
            elif not self.heat_mode:
                pixels[reads & ~writes] = READ_C
                pixels[writes & ~reads] = WRITE_C
                pixels[reads & writes] = BOTH_C
            if marked_recs is not None:
                mr, mw = pb.cell_masks(grid, marked_recs)
                pixels[mr | mw] = MARK_C
            if hover_recs is not None:
                hr, hw = pb.cell_masks(grid, hover_recs)
                pixels[hr | hw] = HOVER_C
            for element in self.marked_elements.get(grid.name, ()):
                cell = int(grid.cell_of(np.array([element]))[0])
                if cell >= 0:
                    pixels[cell // grid.cell_cols, cell % grid.cell_cols] = MARK_C
            canvas.outlines = []
            touched = reads | writes
            if touched.any() and grid.space == GLOBAL:
                rr, cc = np.nonzero(touched)
                canvas.outlines = [
                    (int(rr.min()), int(rr.max()) + 1, int(cc.min()), int(cc.max()) + 1, "#c0392b")
                ]
            counts = (
                f"{int(reads.sum())} read, {int(writes.sum())} written"
                if not (self.heat_mode and grid.space == GLOBAL)
                else "global loads per element"
            )
            canvas.caption = counts
            canvas.set_pixels(pixels)

    # -- hover, clicks, findings -------------------------------------------------------------
    def _cell_hovered(self, grid: Grid, cell: int) -> None:
        pb = self.playback
        if pb is None or not pb.steps:
            return
        if cell < 0:
            self.hover_wi = None
            self.info.setText(" ")
            self.redraw()
            return
        step = pb.steps[self.current]
        touches = pb.touching(grid, cell, step.phase)
        r0, r1, c0, c1 = grid.elements_of_cell(cell)
        where = (
            f"{grid.name}[{r0}][{c0}]"
            if (r1 - r0, c1 - c0) == (1, 1)
            else (f"{grid.name}[{r0}:{r1}][{c0}:{c1}]")
        )
        if not touches:
            self.info.setText(f"{where}: not touched by group {pb.group} in phase {step.phase}")
            self.hover_wi = None
        else:
            parts = [f"work-item {w} line {line} {op}" for w, line, op in touches[:6]]
            more = f" … and {len(touches) - 6} more" if len(touches) > 6 else ""
            self.info.setText(f"{where} in phase {step.phase}: " + "; ".join(parts) + more)
            lx, ly = (list(pb.trace.local_size) + [1, 1])[:2]
            first = touches[0][0]
            self.hover_wi = first[0] + lx * (first[1] + ly * first[2])
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
