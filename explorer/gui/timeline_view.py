"""The timeline under the animation: the selected group's steps left to right, coloured by
phase, a thick mark at every barrier, the current step highlighted; click or drag to scrub."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPaintEvent, QPen, QPixmap
from PySide6.QtWidgets import QSizePolicy, QWidget


class Timeline(QWidget):
    """Steps left to right; a thick mark at every barrier; the current step highlighted."""

    step_clicked = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.steps: list[tuple[int, int]] = []  # (phase, line)
        self.barriers: set[int] = set()
        self.current = 0
        self._cache: tuple[tuple[int, int, int, int], QPixmap] | None = None
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self._fit_font()
        self.setAttribute(Qt.WidgetAttribute.WA_OpaquePaintEvent)

    def _fit_font(self) -> None:
        """Bar and text one above the other at any type size (presenter mode scales it)."""
        self.setFixedHeight(34 + self.fontMetrics().height())

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.FontChange:
            self._fit_font()
            self._cache = None
        super().changeEvent(event)

    def set_steps(self, steps: list[tuple[int, int]], barriers: list[int]) -> None:
        self.steps, self.barriers = steps, set(barriers)
        self.current = min(self.current, max(len(steps) - 1, 0))  # no step of another trace
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

    def paintEvent(self, event: QPaintEvent) -> None:
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

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if self.steps:
            index = int(event.position().x() / self.width() * len(self.steps))
            self.step_clicked.emit(max(0, min(index, len(self.steps) - 1)))

    mouseMoveEvent = mousePressEvent  # dragging scrubs
