"""A widget that draws a grid of cells from an RGBA array: cheap to repaint at any size.

Every buffer, local array and the grid of work-groups is one of these. The picture is
composed in numpy (one pixel a cell) and scaled when painted, so a repaint costs the same
for 16 cells or 16 384.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetrics,
    QImage,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QPixmap,
)
from PySide6.QtWidgets import QSizePolicy, QWidget

from explorer.gui.tiling_view import broken_lines


def rgba(hex_colour: str, alpha: int = 255) -> np.ndarray:
    c = QColor(hex_colour)
    return np.array([c.red(), c.green(), c.blue(), alpha], dtype=np.uint8)


class CellCanvas(QWidget):
    """Cells from an (rows, cols, 4) uint8 array, a title, optional outlined rectangles."""

    hovered = Signal(int)  # cell index, -1 when the mouse leaves
    clicked = Signal(int)

    def __init__(self, title: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = title
        self.pixels = np.zeros((1, 1, 4), dtype=np.uint8)
        self._image: QImage | None = None
        self._scaled: QPixmap | None = None  # the picture at its drawn size, until it changes
        self.outlines: list[tuple[int, int, int, int, str]] = []  # r0, r1, c0, c1, colour
        self.caption = ""
        self.cell_labels: list[list[str]] | None = None  # text drawn in each cell, if any
        self.setMouseTracking(True)
        self.title_height = 22
        self._bold = QFont(self.font())
        self._bold.setBold(True)
        # Never so narrow that its title is cut ("Work-grou").
        self.setMinimumSize(max(80, QFontMetrics(self._bold).horizontalAdvance(title) + 8), 80)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def sizeHint(self) -> QSize:
        return QSize(260, 260)

    def set_pixels(self, pixels: np.ndarray) -> None:
        pixels = np.ascontiguousarray(pixels, dtype=np.uint8)
        if (
            self._image is not None
            and pixels.shape == self.pixels.shape
            and np.array_equal(pixels, self.pixels)
        ):
            self.update()  # outlines or caption may differ; the cached picture stays
            return
        self.pixels = pixels
        rows, cols = self.pixels.shape[:2]
        self._image = QImage(
            self.pixels.data, cols, rows, 4 * cols, QImage.Format.Format_RGBA8888
        ).copy()
        self._scaled = None
        self.update()

    def cell_rect(self) -> QRectF:
        """Where the cells are drawn: as large as fits, square cells."""
        rows, cols = self.pixels.shape[:2]
        caption = self.fontMetrics().height() * max(1, len(self.caption_lines())) + 4
        area = QRectF(
            4, self.title_height, self.width() - 8, self.height() - self.title_height - caption
        )
        scale = min(area.width() / cols, area.height() / rows)
        w, h = cols * scale, rows * scale
        return QRectF(area.left() + (area.width() - w) / 2, area.top(), w, h)

    def caption_lines(self) -> list[str]:
        """The caption as painted: one line, or two broken between words where the canvas
        is narrower ("group (0, 0, 0)" above "11/2304 traced")."""
        metrics, width = self.fontMetrics(), self.width() - 8
        return broken_lines(self.caption, lambda t: metrics.horizontalAdvance(t) <= width)

    def cell_at(self, x: float, y: float) -> int:
        rect = self.cell_rect()
        rows, cols = self.pixels.shape[:2]
        if not rect.contains(QPointF(x, y)):
            return -1
        c = int((x - rect.left()) / rect.width() * cols)
        r = int((y - rect.top()) / rect.height() * rows)
        return min(r, rows - 1) * cols + min(c, cols - 1)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setFont(self._bold)
        painter.setPen(QColor("#1b2631"))
        painter.drawText(
            QRectF(4, 0, self.width() - 8, self.title_height),
            Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
            self.title,
        )
        if self._image is None:
            return
        rect = self.cell_rect()
        size = rect.size().toSize()
        if self._scaled is None or self._scaled.size() != size:
            self._scaled = QPixmap.fromImage(self._image.scaled(size))
        painter.drawPixmap(rect.topLeft(), self._scaled)
        rows, cols = self.pixels.shape[:2]
        sx, sy = rect.width() / cols, rect.height() / rows
        for r0, r1, c0, c1, colour in self.outlines:
            painter.setPen(QPen(QColor(colour), 2.5))
            painter.drawRect(
                QRectF(rect.left() + c0 * sx, rect.top() + r0 * sy, (c1 - c0) * sx, (r1 - r0) * sy)
            )
        if self.cell_labels:
            painter.setPen(QColor("#1b2631"))
            for r, row in enumerate(self.cell_labels):
                for c, text in enumerate(row):
                    if text:
                        painter.drawText(
                            QRectF(rect.left() + c * sx, rect.top() + r * sy, sx, sy),
                            Qt.AlignmentFlag.AlignCenter,
                            text,
                        )
        if self.caption:
            painter.setPen(QColor("#34495e"))
            painter.setFont(self.font())
            height = self.fontMetrics().height()
            for i, line in enumerate(self.caption_lines()):
                painter.drawText(
                    QRectF(4, rect.bottom() + 1 + i * height, self.width() - 8, height + 2),
                    Qt.AlignmentFlag.AlignLeft,
                    line,
                )

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        self.hovered.emit(self.cell_at(event.position().x(), event.position().y()))

    def leaveEvent(self, event: QEvent) -> None:
        self.hovered.emit(-1)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        cell = self.cell_at(event.position().x(), event.position().y())
        if cell >= 0:
            self.clicked.emit(cell)
