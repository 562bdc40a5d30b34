"""The room view: presenter mode's execution, made to be read from the back of a lecture hall
on a 1280×720 projector.

Every global buffer is drawn whole (a 768×768 matrix as one picture), the group's share of it
highlighted as a book would: everything the group touches as a band (its row of tiles in A,
its column of tiles in B), the tile of this step boxed in red, the group's tile of the output
boxed in orange; the boxes never drawn smaller than a finger's width, however small the tile
is in the picture. Beside them, large, the cells whose values matter: the local tiles (or,
for a kernel without local memory, each buffer's window), their values always written.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontInfo,
    QFontMetrics,
    QFontMetricsF,
    QImage,
    QPainter,
    QPaintEvent,
    QPen,
    QPixmap,
)
from PySide6.QtWidgets import QSizePolicy, QWidget

from explorer.gui.cell_colours import STEP_OUTLINE, WRITE_OUTLINE
from explorer.gui.tiling_view import ROOM_LABEL_PX, Frame, broken_lines
from explorer.trace.grids import Box, Grid
from explorer.trace.playback import Playback
from explorer.trace.recorded import GLOBAL, LOCAL


class _Compactable(Protocol):
    def set_compact(self, on: bool) -> None: ...


class _Roomable(Protocol):
    def set_room(self, on: bool) -> None: ...


class _AnatomyLine(Protocol):
    def show_anatomy_line(self, on: bool) -> None: ...


class RoomHost(Protocol):
    """What the room view changes in the execution view."""

    @property
    def legend(self) -> _Compactable: ...

    @property
    def lines(self) -> _AnatomyLine: ...

    @property
    def info(self) -> QWidget: ...

    @property
    def buffers(self) -> _Roomable: ...

    def set_tight(self, on: bool) -> None: ...


SMALLEST_BOX = 14.0  # pixels: a highlighted tile is never drawn smaller
BAND = QColor(192, 57, 43, 55)  # everything the group touches, over the whole buffer


PRESENTER_STYLE = """
QWidget {{ font-size: {base}px; background: #ffffff; color: #111111; }}
QPushButton {{ font-size: {base}px; padding: 3px 6px; }}
QLabel#badge {{ font-size: {badge}px; }}
QLabel#step-label {{ font-size: {step}px; font-weight: bold; }}
QLabel#stage-caption {{ font-size: {step}px; color: #1a5276; }}
"""


def presenter_style(width: int, height: int) -> str:
    """Presenter mode's large type, in pixels and scaled to the screen: nothing under 16 px on
    a 1280×720 projector (the step's line and the caption 18 px), 20 px at 1920×1080."""
    scale = min(width / 1920, height / 1080)
    base = max(16, round(20 * scale))
    step = max(18, round(base * 1.15))
    return PRESENTER_STYLE.format(base=base, badge=max(step, round(base * 1.25)), step=step)


def set_room_view(view: RoomHost, on: bool) -> None:
    """The execution view as the room sees it (presenter mode), or as the desk does: the
    room view's buffers, the legend's keys only, no hover line (nobody hovers in a talk;
    each cell's tooltip still gives its exact value), no index anatomy line (a debugging
    aid, whose row the tiles need at 1280×720), its parts closer together."""
    view.legend.set_compact(on)
    view.info.setVisible(not on)
    view.lines.show_anatomy_line(not on)
    view.set_tight(on)
    view.buffers.set_room(on)


def room_places(pb: Playback) -> tuple[list[Grid], list[Grid]]:
    """(the buffers drawn whole, the buffers drawn large with their values): every global
    buffer whole; beside them the local arrays or, where the kernel has none, the global
    buffers' windows."""
    globals_ = [g for g in pb.grids if g.space == GLOBAL]
    locals_ = [g for g in pb.grids if g.space == LOCAL]
    by_role = {pb.trace.buffers[g.buffer].role: g for g in globals_}
    if {"A", "B", "C"} <= set(by_role):  # the textbook order: A, B, then their product
        first = [by_role["A"], by_role["B"], by_role["C"]]
        globals_ = first + [g for g in globals_ if g not in first]
    return globals_, locals_ or globals_


class WholeCanvas(QWidget):
    """One buffer whole, with the group's band, this step's tile and the output tile."""

    def __init__(self, title: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = title
        self.drawn_title = ""  # the title as last painted (its lines joined), whole if it fits
        self.frame: Frame | None = None
        self._picture: tuple[object, QSize, QPixmap] | None = None
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def sizeHint(self) -> QSize:
        return QSize(200, 200)

    def minimumSizeHint(self) -> QSize:
        """Wide enough for each word of the title (at the room's type): the naive stage's
        narrow column at 1280×720 reads "A" above "768×768", not "A…"."""
        metrics = QFontMetrics(self.title_font())
        widest = max((metrics.horizontalAdvance(w) for w in self.title.split()), default=0)
        return QSize(max(90, widest + 8), 90)

    def set_frame(self, frame: Frame) -> None:
        old = self.frame
        if (
            old is not None
            and old.overview_key == frame.overview_key
            and old.outlines == frame.outlines
            and old.extent == frame.extent
            and old.focus == frame.focus
        ):
            return
        self.frame = frame
        self.update()

    def title_font(self) -> QFont:
        """Bold, never under ROOM_LABEL_PX."""
        font = QFont(self.font())
        font.setBold(True)
        if QFontInfo(font).pixelSize() < ROOM_LABEL_PX:
            font.setPixelSize(ROOM_LABEL_PX)
        return font

    def title_lines(self) -> list[str]:
        """The title in one line, else two broken between words ("vector 1000" above
        "(wrapped)"); shortened by words only where two do not hold it ("A…")."""
        metrics, width = QFontMetrics(self.title_font()), self.width() - 8
        return broken_lines(self.title, lambda t: metrics.horizontalAdvance(t) <= width)

    def picture_rect(self) -> QRectF:
        """Where the whole buffer is drawn: as large as fits, its cells square."""
        top = QFontMetricsF(self.title_font()).height() * len(self.title_lines()) + 4
        area = QRectF(4, top, self.width() - 8, self.height() - top - 4)
        rows, cols = self.frame.shape if self.frame is not None else (1, 1)
        scale = min(area.width() / cols, area.height() / rows)
        w, h = cols * scale, rows * scale
        return QRectF(area.left() + (area.width() - w) / 2, area.top(), w, h)

    def box_rect(self, box: Box) -> QRectF:
        """A box of elements in the picture, grown about its centre to SMALLEST_BOX, and
        moved inside the picture where that took it out (over the title above)."""
        assert self.frame is not None
        rect = self.picture_rect()
        rows, cols = self.frame.shape
        sx, sy = rect.width() / cols, rect.height() / rows
        r0, r1, c0, c1 = box
        out = QRectF(rect.left() + c0 * sx, rect.top() + r0 * sy, (c1 - c0) * sx, (r1 - r0) * sy)
        grow_w = max(0.0, SMALLEST_BOX - out.width()) / 2
        grow_h = max(0.0, SMALLEST_BOX - out.height()) / 2
        out = out.adjusted(-grow_w, -grow_h, grow_w, grow_h)
        out.moveLeft(max(rect.left(), min(out.left(), rect.right() - out.width())))
        out.moveTop(max(rect.top(), min(out.top(), rect.bottom() - out.height())))
        return out

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        font = self.title_font()
        painter.setFont(font)
        painter.setPen(QColor("#1b2631"))
        height = QFontMetricsF(font).height()
        lines = self.title_lines()
        self.drawn_title = " ".join(lines)
        for i, line in enumerate(lines):
            painter.drawText(
                QRectF(4, 2 + i * height, self.width() - 8, height),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                line,  # "A…", never "A 256×…"
            )
        frame = self.frame
        if frame is None:
            return
        rect = self.picture_rect()
        if rect.width() < 2 or rect.height() < 2:
            return
        painter.drawPixmap(rect.topLeft(), self._scaled(rect.size().toSize()))
        painter.setPen(QPen(QColor("#5d6d7e"), 1))
        painter.drawRect(rect)
        if frame.extent is not None:
            painter.fillRect(self.box_rect(frame.extent), BAND)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        for box, colour, _width in self.highlights():
            painter.setPen(QPen(QColor("white"), 6))  # a halo: the box reads on any picture
            painter.drawRect(self.box_rect(box))
            painter.setPen(QPen(QColor(colour), 3.5))
            painter.drawRect(self.box_rect(box))

    def highlights(self) -> list[tuple[Box, str, float]]:
        """The boxes drawn: the output tile, then this step's tile (the step's own box, or
        where the group last worked in this buffer)."""
        assert self.frame is not None
        outlines = self.frame.outlines
        boxes = [o for o in outlines if o[1] == WRITE_OUTLINE]
        steps = [o for o in outlines if o[1] == STEP_OUTLINE]
        if not steps and self.frame.focus is not None and not boxes:
            steps = [(self.frame.focus, STEP_OUTLINE, 3.0)]
        return boxes + steps

    def _scaled(self, size: QSize) -> QPixmap:
        assert self.frame is not None
        key = self.frame.overview_key
        if self._picture is not None and self._picture[:2] == (key, size):
            return self._picture[2]
        data = self.frame.overview
        if data is None:
            data = np.full((1, 1, 4), 236, dtype=np.uint8)
        data = np.ascontiguousarray(data, dtype=np.uint8)
        image = QImage(
            data.data,
            data.shape[1],
            data.shape[0],
            4 * data.shape[1],
            QImage.Format.Format_RGBA8888,
        )
        mode = (
            Qt.TransformationMode.FastTransformation
            if size.width() >= data.shape[1]
            else Qt.TransformationMode.SmoothTransformation
        )
        pixmap = QPixmap.fromImage(image.scaled(size, mode=mode))
        self._picture = (key, size, pixmap)
        return pixmap
