"""The lines of text around the animation: above it, a talk stage's caption, the step's
phase and source line, what the watched work-item accesses at this step with the values, and
the index anatomy of that access (each term of its index, its value and where it came from);
below it, what the mouse is over (who touched a cell and the anatomy of that access, where a
local value came from, when a work-group started) or a notice."""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QFontDatabase, QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from explorer.gui.tiling_view import value_label
from explorer.gui.value_text import exact_text
from explorer.trace.grids import Grid
from explorer.trace.playback import Playback
from explorer.trace.recorded import ATOMIC, LOCAL, OP_NAMES, RMW, WRITE
from explorer.trace.steps import Step

READY = "Trace a kernel (Ctrl+T) to watch it run."


class OneLineLabel(QLabel):
    """One line as wide as the view: a text wider than that ends with "…" where it is cut,
    never mid-letter at the edge; ``text()`` and the tooltip give it whole. With word wrap
    on, the text is shown whole in as many lines as it takes."""

    def __init__(self, text: str = " ", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._full = text
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._fit()

    def text(self) -> str:
        return self._full

    def setText(self, text: str) -> None:
        self._full = text
        self.setToolTip("")
        self._fit()

    def shown_text(self) -> str:
        """What the label shows at its present width."""
        return super().text()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._fit()  # presenter mode's larger type: cut again where it now ends

    def setWordWrap(self, on: bool) -> None:
        super().setWordWrap(on)
        self._fit()

    def _fit(self) -> None:
        if self.wordWrap():
            super().setText(self._full)
            return
        width = self.contentsRect().width()
        elided = self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideRight, width)
        super().setText(elided)
        if elided != self._full:
            self.setToolTip(self._full)


class StepLines(QWidget):
    """The caption, the step line and the reads line, one above the other."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.full_digits = False  # the watched work-item's values with every digit
        lines = QVBoxLayout(self)
        lines.setContentsMargins(0, 0, 0, 0)
        self.caption = QLabel("")
        self.caption.setObjectName("stage-caption")
        self.caption.setWordWrap(True)
        self.caption.setVisible(False)
        lines.addWidget(self.caption)
        # A step's source line wider than the view (the tour's reg2d, "const float4 a =
        # *(const __local float4*)&Asub[buf][k][v * 4 * RTSM" in the room) ends with "…".
        self.step_label = OneLineLabel(READY)
        self.step_label.setObjectName("step-label")
        font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        font.setPointSize(12)
        self.step_label.setFont(font)  # a font, not a style sheet: cheaper to repaint
        lines.addWidget(self.step_label)
        self.reads_label = OneLineLabel(" ")
        self.reads_label.setObjectName("reads-label")
        lines.addWidget(self.reads_label)
        # One line, as wide as the view (the whole text on hover): a step's change never moves
        # the animation below it.
        self.anatomy_label = OneLineLabel(" ")
        self.anatomy_label.setObjectName("anatomy-label")
        lines.addWidget(self.anatomy_label)

    def set_caption(self, text: str) -> None:
        """A line above the animation that says what this stage of a talk shows."""
        self.caption.setText(text)
        self.caption.setVisible(bool(text))

    def show_step(self, step: Step, text: str) -> None:
        """The step's phase and line, and ``text``, the line's text in the source."""
        self.step_label.setWordWrap(False)  # one line: stepping never moves what is below
        self.step_label.setText(f"phase {step.phase} · line {step.line}:  {text.strip()}")

    def show_message(self, message: str) -> None:
        """No step to show: say why (in as many lines as it takes: a long kernel name's
        "trace it (Ctrl+T) …" ran off the view's edge), and nothing about reads."""
        self.step_label.setWordWrap(True)
        self.step_label.setText(message)
        self.reads_label.setText(" ")
        self._show_anatomy("")

    def show_reads(self, pb: Playback, now: np.ndarray | None) -> None:
        """The watched work-item's accesses at this step (``now``, its records), with
        their values."""
        who = pb.cursor.watched
        if who is None or now is None:
            self.reads_label.setText(" ")
            self._show_anatomy("")
            return
        lx, ly = (list(pb.trace.local_size) + [1, 1])[:2]
        local = (who % lx, (who // lx) % ly)
        parts = []
        for r in now[:6]:
            b = int(pb.index.buffer[r])
            if b < 0 or bool(pb.index.oob[r]):
                continue
            parts.append(_access_text(pb, pb.grids[b], r, self.full_digits))
        detail = ", ".join(parts) if parts else "no access at this step"
        self.reads_label.setText(f"work-item {local} of group {pb.group}: {detail}")
        self._show_anatomy(anatomy_text(pb, now))

    def show_anatomy_line(self, on: bool) -> None:
        """Show the index anatomy line (the desk) or not (the room view of presenter mode)."""
        self.anatomy_label.setVisible(on)

    def _show_anatomy(self, text: str) -> None:
        self.anatomy_label.setText(text or " ")
        self.anatomy_label.setToolTip(text)


def anatomy_text(pb: Playback, records: np.ndarray) -> str:
    """The index anatomy of the first of ``records`` that made an access with an index, a
    write first (``Asub[ty][tx] = A[...]`` is about the store): ``index of Asub[ty][tx]: ty
    = 3 ← get_local_id(1) at line 35; …``; "" without one."""
    records = records[:6]
    writes = np.isin(pb.index.op[records], (WRITE, RMW, ATOMIC))
    for r in np.concatenate([records[writes], records[~writes]]):
        if int(pb.index.buffer[r]) < 0:
            continue
        explained = pb.explain(int(r))
        if explained is not None and explained.terms:
            return explained.text_line()
    return ""


def _access_text(pb: Playback, grid: Grid, record: int, full: bool = False) -> str:
    """One access as "read A[3][5] = 0.5": the op, the element, its value at this step (in
    five characters, else, ``full``, with every digit: "= -.87341237")."""
    index = pb.index
    row, col = grid.element_rc(np.array([index.index[record]]))
    row_i, col_i = int(row[0]), int(col[0])
    where = f"{grid.name}[{row_i}][{col_i}]" if grid.rows > 1 else f"{grid.name}[{col_i}]"
    value = float("nan")
    group = pb.cursor.group_steps
    if grid.space == LOCAL and group is not None and row_i < grid.rows and col_i < grid.cols:
        local = pb.values.local_contents(group, grid, pb.cursor.step)[0]
        value = float(local[row_i, col_i])
    elif (values := pb.values.buffer(grid)) is not None:
        value = float(values[row_i, col_i])
    op = OP_NAMES.get(int(index.op[record]), "?")
    text = exact_text(value) if full else value_label(value)
    return f"{op} {where}" + (f" = {text}" if text else "")


class InfoLine(QLabel):
    """The line under the animation: what the mouse is over, or a notice."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(" ", parent)
        self.setWordWrap(True)
        self.setMinimumHeight(40)

    def show_cell(self, pb: Playback, grid: Grid, row: int, col: int) -> int | None:
        """Who of the group touched this cell in this phase (and, in local memory, where
        its value came from); the linear local id of the first of them, or None."""
        cursor = pb.cursor
        group = cursor.group_steps
        assert group is not None
        step = cursor.current
        cell = int(grid.cell_of(np.array([grid.index_at(row, col)]))[0])
        touches = group.touching(grid, cell, step.phase) if cell >= 0 else []
        where = f"{grid.name}[{row}][{col}]" if grid.rows > 1 else f"{grid.name}[{col}]"
        origin = ""
        if grid.space == LOCAL:
            origin = pb.values.local_origin(group, grid, cursor.step, row, col)
        if not touches:
            self.setText(f"{where}{origin}: not touched by group {pb.group} in phase {step.phase}")
            return None
        parts = [f"work-item {w} line {line} {op}" for w, line, op in touches[:6]]
        more = f" … and {len(touches) - 6} more" if len(touches) > 6 else ""
        text = f"{where}{origin} in phase {step.phase}: " + "; ".join(parts) + more
        anatomy = anatomy_text(pb, group.touching_records(grid, cell, step.phase)[:1])
        self.setText(text + (f"\n{touches[0][0]}: {anatomy}" if anatomy else ""))
        lx, ly = (list(pb.trace.local_size) + [1, 1])[:2]
        first = touches[0][0]
        return first[0] + lx * (first[1] + ly * first[2])

    def show_group(self, pb: Playback, group: tuple[int, int, int]) -> None:
        """When a work-group started, and whether it was traced."""
        rank = int(pb.index.dispatch_rank[pb.index.group_index(group)])
        traced = "traced" if pb.index.is_traced(group) else "not traced: click to trace"
        self.setText(f"work-group {group}: started {rank + 1}. ({traced})")
