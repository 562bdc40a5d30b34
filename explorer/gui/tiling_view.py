"""Focus and context for one buffer: a window of it at element resolution, large enough to
read from the back of a room, beside an overview of the whole buffer with the window marked.

The window's cells carry their values (where the cells are large enough for the text), the
tile grid is drawn over them, and boxes mark what the group does. The picture is composed in
numpy by the execution view; this widget only scales it, caches the text layer and draws a
few lines, so a repaint costs about the same at 64 or 768.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from PySide6.QtCore import QEvent, QLineF, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontInfo,
    QFontMetrics,
    QFontMetricsF,
    QImage,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QPixmap,
    QResizeEvent,
)
from PySide6.QtWidgets import QSizePolicy, QWidget

from explorer.gui.value_text import (
    CUT,
    DIGITS_KEY,
    exact_text,
    fitted_text,
    readable_cut,
    value_label,
)
from explorer.trace.grids import Box

__all__ = ["ROOM_LABEL_PX", "ROOM_SMALLEST_PX", "FocusCanvas", "Frame", "value_label"]

# Fixed scale for loads per element (log2): the same colour means the same number in every
# trace, so naive (64 loads per element at 64³) and tiled (4) differ at a glance.
HEAT_TOP = 1024
HEAT_TICKS = (1, 4, 16, 64, 256, 1024)
HEAT_LOW, HEAT_HIGH = "#fef9e7", "#78281f"
# The room view (presenter mode): the smallest a value is written, in pixels, and the
# smallest cell that holds one (the window shows no more cells than fit at that size).
ROOM_LABEL_PX = 18
# A value wider than its cell at ROOM_LABEL_PX is written narrower (the font's condensed
# widths), then smaller, never under ROOM_SMALLEST_PX; only then cut, with the legend's mark.
# Cell values are never under 18 px in the room view, on a 1280×720 projector too, where
# a 16×16 tile's cells are 23 to 25 px: "1.5" fits one at 68 % of the font's width.
ROOM_SMALLEST_PX = 18
ROOM_STRETCHES = (100, 87, 75, 68)
# The presenter's smallest cell: at 1280×720 the 16 rows of a 16×16 tile fit beside the
# whole matrices under a talk's caption of four lines (its 18 px values condensed where they
# need it). A slide, with no playback bar or side column, asks for larger ones (slide_view).
# A matrix's window never shows less than the group's tile: where its panel is narrower
# (naive's A, B and C side by side at 1280×720) its cells are smaller, each value written
# whole where it fits at ROOM_SMALLEST_PX, else cut, else the mark alone or only its colour.
ROOM_CELL = 23
ROOM_WIDE_CELL = 32  # a wrapped vector's cell: three characters of its values
DESK_CELL = 14  # the desk's wrapped vector: the smallest cell, where its values are written


OVERVIEW_LABEL = "whole"  # under the overview: the whole buffer, the window marked in it
# Words a shortened caption does not end on: each leads to the word cut after it.
_DANGLING = frozenset({"a", "an", "the", "in", "of", "to", "at", "by", "on", "for", "and", "or"})


def fitted_words(text: str, fits: Callable[[str], bool]) -> str:
    """``text`` shortened by whole words until it fits one line, with "…" after the last
    word kept; never cut inside a word, never ending on a number (the legend's "1.2…" means
    more digits) nor on a little word that leads to the next ("in…"): "… 192 sums so far…", not
    "… 192 s…" nor "… 192…". Empty where not even one word fits."""
    if fits(text):
        return text
    words = text.split(" ")
    for end in range(len(words) - 1, 0, -1):
        kept = " ".join(words[:end]).rstrip(" ·,;:")
        last = kept.rsplit(" ", 1)[-1]
        if last in _DANGLING or any(ch.isdigit() for ch in last):
            continue
        if fits(kept + CUT):
            return kept + CUT
    return ""


def broken_lines(text: str, fits: Callable[[str], bool], lines: int = 2) -> list[str]:
    """``text`` in one line where it fits; else broken between words into as few lines as
    hold it, ``lines`` at most (no line starts or ends on a " · " separator); only where
    even those do not hold it is the last line shortened by words (see
    :func:`fitted_words`)."""
    if fits(text) or lines <= 1:
        return [text if fits(text) else fitted_words(text, fits)]
    words = text.split(" ")
    for end in range(len(words) - 1, 0, -1):
        first = " ".join(words[:end]).rstrip(" ·")
        if first and fits(first):
            rest = broken_lines(" ".join(words[end:]).lstrip(" ·"), fits, lines - 1)
            if rest[-1]:
                return [first, *rest]
            break
    return [fitted_words(text, fits)]


def fitted_caption(text: str, fits: Callable[[str], bool]) -> str:
    """A caption in one line: whole where it fits; else without the window's place in the
    buffer ("[0:16][0:12] · ": the whole buffer is drawn beside it); else its last part, the
    most particular ("192 sums so far, in registers" after "0 read, 0 written"); else that
    part shortened by words (see :func:`fitted_words`)."""
    parts = text.split(" · ")
    if len(parts) > 1 and parts[0].startswith("["):
        parts = parts[1:]
    for said in (text, " · ".join(parts), parts[-1]):
        if fits(said):
            return said
    return fitted_words(parts[-1], fits)


def broken_caption(text: str, fits: Callable[[str], bool]) -> list[str]:
    """A caption in one line or two, every count kept where two lines hold them: whole;
    else without the window's place; else broken between its parts (else its words) onto
    two lines, with the place where that fits, else without; only where not even two lines
    hold the counts is it one line shortened as :func:`fitted_caption` does."""
    parts = text.split(" · ")
    sources = [parts]
    if len(parts) > 1 and parts[0].startswith("["):
        sources.append(parts[1:])
    for kept in sources:
        if fits(" · ".join(kept)):
            return [" · ".join(kept)]
    for kept in sources:
        for end in range(len(kept) - 1, 0, -1):
            first, rest = " · ".join(kept[:end]), " · ".join(kept[end:])
            if fits(first) and fits(rest):
                return [first, rest]
    for kept in sources:
        lines = broken_lines(" · ".join(kept), fits)
        if not any(line.endswith(CUT) or not line for line in lines):
            return lines
    return [fitted_caption(text, fits)]


def heat_colours(counts: np.ndarray) -> np.ndarray:
    """RGBA for loads per element on the fixed logarithmic scale (0 loads: white)."""
    lo = np.array(QColor(HEAT_LOW).getRgb(), dtype=np.float64)
    hi = np.array(QColor(HEAT_HIGH).getRgb(), dtype=np.float64)
    t = np.log2(np.maximum(counts, 1)) / np.log2(HEAT_TOP)
    out = (lo + (hi - lo) * np.clip(t, 0, 1)[..., None]).astype(np.uint8)
    out[counts <= 0] = (255, 255, 255, 255)
    return out


@dataclass
class Frame:
    """What one canvas draws at one step; coordinates are the buffer's (row, col)."""

    title: str
    shape: tuple[int, int]
    window: Box
    pixels: np.ndarray  # (rows, cols, 4) of the window
    tile: tuple[int, int] = (0, 0)  # tile grid spacing (rows, cols); 0: none
    labels: np.ndarray | None = None  # str per window cell, or None
    labels_key: object = None  # equal keys: equal labels (their picture is reused)
    overview: np.ndarray | None = None  # (r, c, 4) of the whole buffer, binned
    overview_key: object = None
    outlines: list[tuple[Box, str, float]] = field(default_factory=list)
    caption: str = ""
    values: np.ndarray | None = None  # the exact value of each window cell (NaN: none)
    extent: Box | None = None  # everything the group touches in the buffer
    focus: Box | None = None  # what the group touches at this step (or last touched)
    wrap: int = 0  # a 1-D buffer drawn wrapped: elements a row (0: not wrapped)
    length: int = 0  # a wrapped buffer's elements


class FocusCanvas(QWidget):
    """One buffer: the zoom window, its values and tile grid, and the overview."""

    hovered = Signal(int, int)  # row, col of the buffer; -1, -1 when the mouse leaves
    clicked = Signal(int, int)
    resized = Signal()

    def __init__(self, title: str = "", parent: QWidget | None = None, room: bool = False) -> None:
        super().__init__(parent)
        # The room view: values always written, at ROOM_SMALLEST_PX at least (cut with the
        # legend's mark where a value is wider than its cell), the caption at ROOM_LABEL_PX;
        # no overview (the whole buffer is drawn beside it).
        self.room = room
        self.smallest_px = ROOM_SMALLEST_PX  # the smallest value type in the room view
        self.room_cell = ROOM_CELL  # the room view's cell (a slide's: larger)
        self.interactive = True  # False on a slide: no text tells to hover or click
        self.cut = False  # the room view cut some values to fit their cells
        self.drawn: np.ndarray | None = None  # the texts the cells were last painted with
        # the title and the caption's lines as last painted (fitted)
        self.drawn_lines: tuple[str, ...] = ("", "")
        self.frame = Frame(title, (1, 1), (0, 1, 0, 1), np.zeros((1, 1, 4), dtype=np.uint8))
        self._image: QImage | None = None
        self._labels: tuple[object, QSize, QPixmap] | None = None
        self._overview: tuple[object, QPixmap] | None = None
        self._titled: tuple[object, list[str]] | None = None  # the title's lines, and for what
        self._captioned: tuple[object, list[str]] | None = None  # the caption's, and for what
        self.setMouseTracking(True)
        self.setMinimumSize(120, 120)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)

    def sizeHint(self) -> QSize:
        return QSize(320, 320)

    @property
    def pixels(self) -> np.ndarray:
        return self.frame.pixels

    def set_frame(self, frame: Frame) -> None:
        """Show a frame; one equal to the frame shown costs no repaint (while a tile's inner
        product steps on, A, B and C stay as they are)."""
        pixels = np.ascontiguousarray(frame.pixels, dtype=np.uint8)
        frame.pixels = pixels
        old = self.frame
        if (
            self._image is not None
            and frame.window == old.window
            and frame.labels_key == old.labels_key
            and frame.caption == old.caption
            and frame.outlines == old.outlines
            and frame.title == old.title
            and frame.overview_key == old.overview_key
            and np.array_equal(pixels, old.pixels)
        ):
            return
        if self._image is None or not np.array_equal(pixels, self.frame.pixels):
            rows, cols = pixels.shape[:2]
            # In the painter's own format: scaling it up as drawn then needs no conversion.
            self._image = QImage(
                pixels.data, cols, rows, 4 * cols, QImage.Format.Format_RGBA8888
            ).convertToFormat(QImage.Format.Format_ARGB32_Premultiplied)
        if self._overview is not None and self._overview[0] != frame.overview_key:
            self._overview = None
        self.frame = frame
        self.update()

    # -- geometry ----------------------------------------------------------------------
    def _title_height(self) -> float:
        return QFontMetricsF(self._title_font()).height() * len(self.title_lines()) + 4

    def title_lines(self) -> list[str]:
        """The title as painted: one line (saying when values are cut, where that fits
        too), else two, broken between words: a narrow canvas reads its whole title."""
        font = self._title_font()
        width = self.width() - 8
        key = (self.frame.title, width, self.cut, self.interactive, font.key())
        if self._titled is not None and self._titled[0] == key:
            return self._titled[1]
        metrics = QFontMetrics(font)

        def fits(text: str) -> bool:
            return metrics.horizontalAdvance(text) <= width

        title = self.frame.title
        lines = [self._fitted_title(title, fits)] if fits(title) else broken_lines(title, fits)
        self._titled = (key, lines)
        return lines

    def _title_font(self) -> QFont:
        font = self.caption_font()
        font.setBold(True)
        return font

    def caption_font(self) -> QFont:
        """The font of the caption (and, bold, the title): the widget's, and in the room
        view never under ROOM_LABEL_PX."""
        font = QFont(self.font())
        if self.room and QFontInfo(font).pixelSize() < ROOM_LABEL_PX:
            font.setPixelSize(ROOM_LABEL_PX)
        return font

    def _caption_height(self) -> float:
        lines = len(self.caption_lines()) if self.frame.caption else 0
        return QFontMetricsF(self.caption_font()).height() * lines + 2 if lines else 0.0

    def caption_lines(self, width: float | None = None) -> list[str]:
        """The caption as painted in ``width`` pixels (the canvas's, by default): one line,
        else two, keeping what the step read and wrote (a narrow wrapped vector's "wrapped, 9
        a row" above "3 read, 0 written"; in the room view C's "0 read, 0 written" above "256
        sums so far, in registers": the counts are what a teacher points at)."""
        text = self.frame.caption
        if not text:
            return []
        font = self.caption_font()
        width = self.width() - 8 if width is None else width
        key = (text, width, font.key())
        if self._captioned is not None and self._captioned[0] == key:
            return self._captioned[1]
        metrics = QFontMetrics(font)

        def fits(candidate: str) -> bool:
            return metrics.horizontalAdvance(candidate) <= width

        lines = broken_caption(text, fits)
        self._captioned = (key, lines)
        return lines

    def caption_rect(self) -> QRectF:
        """Where the caption is written: under the zoom window, across the canvas; left of
        the overview where the overview and its label reach below the zoom window (a few
        rows of a wide matrix)."""
        zoom, overview = self.areas()
        width = self.width() - 8.0
        if overview is not None:
            label = QFontMetricsF(self.font()).height() + 2
            if overview.bottom() + label > zoom.bottom():
                width = overview.left() - 8 - 4
        lines = len(self.caption_lines(width))
        height = QFontMetricsF(self.caption_font()).height() * lines
        return QRectF(4, zoom.bottom() + 2, width, height)

    def _has_overview(self) -> bool:
        r0, r1, c0, c1 = self.frame.window
        rows, cols = self.frame.shape
        shown = (r1 - r0, c1 - c0) != (rows, cols)
        return self.frame.overview is not None and shown and not self.room

    def room_capacity(self) -> tuple[int, int]:
        """The most rows and columns of cells that fit at ``room_cell`` pixels a cell (under
        a caption of one line: one of two makes them a little smaller)."""
        top = self._title_height() + QFontMetricsF(self.caption_font()).height() + 4
        cell = self.room_cell
        return (
            max(1, int((self.height() - top - 2) // cell)),
            max(1, int((self.width() - 8) // cell)),
        )

    def desk_capacity(self) -> tuple[int, int]:
        """The most rows and columns of DESK_CELL cells the desk's zoom window holds beside
        its overview."""
        captions = max(1, len(self.caption_lines()))
        top = self._title_height() + QFontMetricsF(self.font()).height() * captions + 4
        height = self.height() - top - 2
        width = self.width() - 8
        side = self._overview_side(width, height) + 8  # the overview, as areas() has it
        return (
            max(1, int(height // DESK_CELL)),
            max(1, int((width - side) // DESK_CELL)),
        )

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self.resized.emit()

    def areas(self) -> tuple[QRectF, QRectF | None]:
        """(the zoom window's cells, the overview) in widget coordinates; square cells."""
        top = self._title_height()
        area = QRectF(4, top, self.width() - 8, self.height() - top - self._caption_height() - 2)
        r0, r1, c0, c1 = self.frame.window
        rows, cols = max(r1 - r0, 1), max(c1 - c0, 1)
        overview = None
        zoom_area = area
        if self._has_overview():
            side = self._overview_side(area.width(), area.height())
            zoom_area = QRectF(area.left(), area.top(), area.width() - side - 8, area.height())
            orows, ocols = self.frame.shape
            scale = side / max(orows, ocols)
            overview = QRectF(area.right() - side, area.top(), ocols * scale, orows * scale)
        scale = min(zoom_area.width() / cols, zoom_area.height() / rows)
        w, h = cols * scale, rows * scale
        zoom = QRectF(zoom_area.left() + (zoom_area.width() - w) / 2, zoom_area.top(), w, h)
        return zoom, overview

    def _overview_side(self, width: float, height: float) -> float:
        """The overview's side beside a zoom window in ``width`` × ``height``: wide enough
        for its label ("whole") where the canvas has room."""
        label = QFontMetrics(self.font()).horizontalAdvance(OVERVIEW_LABEL)
        return min(max(width * 0.22, min(label, width * 0.35)), height * 0.45, 200.0)

    def cell_size(self) -> float:
        zoom, _ = self.areas()
        r0, r1, _c0, _c1 = self.frame.window
        return zoom.height() / max(r1 - r0, 1)

    def element_at(self, x: float, y: float) -> tuple[int, int]:
        zoom, _ = self.areas()
        if not zoom.contains(QPointF(x, y)):
            return -1, -1
        r0, r1, c0, c1 = self.frame.window
        r = r0 + int((y - zoom.top()) / zoom.height() * (r1 - r0))
        c = c0 + int((x - zoom.left()) / zoom.width() * (c1 - c0))
        return min(r, r1 - 1), min(c, c1 - 1)

    # -- painting ------------------------------------------------------------------------
    def paintEvent(self, event: QPaintEvent) -> None:
        frame = self.frame
        zoom, overview = self.areas()
        size = zoom.size().toSize()
        overlay = None
        if self._image is not None and size.width() >= 1 and size.height() >= 1:
            _r0, _r1, c0, c1 = frame.window
            overlay = self._overlay(size, zoom.width() / max(c1 - c0, 1))  # says: cut?
        painter = QPainter(self)
        painter.setFont(self._title_font())
        painter.setPen(QColor("#1b2631"))
        lines = self.title_lines()
        title = " ".join(lines)
        self.drawn_lines = (title, "")
        line_height = QFontMetricsF(self._title_font()).height()
        for i, line in enumerate(lines):
            painter.drawText(
                QRectF(4, 2 + i * line_height, self.width() - 8, line_height),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                line,
            )
        if self._image is None or overlay is None:
            return
        painter.drawImage(zoom, self._image)  # a few hundred cells: scaled as drawn
        _r0, _r1, c0, c1 = frame.window
        cell = zoom.width() / max(c1 - c0, 1)
        painter.drawPixmap(zoom.topLeft(), overlay)
        painter.setClipRect(zoom.adjusted(-3, -3, 3, 3))
        for box, colour, width in frame.outlines:
            rect = self._box_rect(box, zoom, cell)
            if rect is not None:
                painter.setPen(QPen(QColor(colour), width))
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRect(rect)
        painter.setClipping(False)
        if overview is not None:
            self._draw_overview(painter, overview)
        if frame.caption:
            painter.setFont(self.caption_font())
            painter.setPen(QColor("#34495e"))
            rect = self.caption_rect()
            lines = self.caption_lines(rect.width())
            self.drawn_lines = (title, *lines)
            height = painter.fontMetrics().height()
            for i, line in enumerate(lines):
                painter.drawText(
                    QRectF(rect.left(), rect.top() + i * height, rect.width(), height),
                    Qt.AlignmentFlag.AlignLeft,
                    line,
                )

    def _fitted_title(self, title: str, fits: Callable[[str], bool]) -> str:
        """The title, saying when some values are cut (and, where someone can, how to read
        them whole: at the desk by hovering, in the room view by the Step menu's key), as
        much of that as fits."""
        if self.cut:
            how = (f": {DIGITS_KEY}" if self.room else ": hover") if self.interactive else ""
            for said in (f"{title} · {CUT} more digits{how}", f"{title} · {CUT} more digits"):
                if fits(said):
                    return said
        return fitted_words(title, fits)

    def _box_rect(self, box: Box, zoom: QRectF, cell: float) -> QRectF | None:
        r0, r1, c0, c1 = self.frame.window
        b0, b1, d0, d1 = box
        if b1 <= r0 or b0 >= r1 or d1 <= c0 or d0 >= c1:
            return None
        return QRectF(
            zoom.left() + (d0 - c0) * cell,
            zoom.top() + (b0 - r0) * cell,
            (d1 - d0) * cell,
            (b1 - b0) * cell,
        )

    def _overlay(self, size: QSize, cell: float) -> QPixmap:
        """The cell lines, the tile grid and the values, drawn once per window, size and
        content: hundreds of lines and texts are too many to draw on every repaint."""
        frame = self.frame
        key = (frame.labels_key, frame.window, frame.tile, size, self.room)
        if self._labels is not None and self._labels[0] == key:
            return self._labels[2]
        picture = QPixmap(size)
        picture.fill(Qt.GlobalColor.transparent)
        p = QPainter(picture)
        r0, r1, c0, c1 = frame.window
        w, h = size.width(), size.height()
        if cell >= 8:
            p.setPen(QPen(QColor(255, 255, 255, 200), 1))
            for i in range(1, c1 - c0):
                p.drawLine(QLineF(i * cell, 0, i * cell, h))
            for i in range(1, r1 - r0):
                p.drawLine(QLineF(0, i * cell, w, i * cell))
        tr, tc = frame.tile
        p.setPen(QPen(QColor("#17202a"), 2))
        if tc > 0:
            for c in range(c0 + (-c0) % tc, c1 + 1, tc):
                p.drawLine(QLineF((c - c0) * cell, 0, (c - c0) * cell, h))
        if tr > 0:
            for r in range(r0 + (-r0) % tr, r1 + 1, tr):
                p.drawLine(QLineF(0, (r - r0) * cell, w, (r - r0) * cell))
        p.setPen(QPen(QColor("#5d6d7e"), 1))
        p.drawRect(QRectF(0.5, 0.5, w - 1, h - 1))
        if frame.labels is not None:
            self._draw_labels(p, frame.labels, cell)
        p.end()
        self._labels = (key, size, picture)
        return picture

    def label_font(self, labels: np.ndarray, cell: float) -> QFont | None:
        """The font the values are written in (None: not written, the cells too small);
        in the room view never under ROOM_SMALLEST_PX."""
        widest = max((len(str(t)) for t in labels.ravel()), default=0)
        pixel = min(cell * 0.45, (cell * 0.92) / max(widest * 0.62, 1))
        font = QFont(self.font())
        font.setBold(not self.room)  # the room's values are large: regular fits 1.5
        if self.room:
            return self._room_font(font, self.room_texts(labels), cell)
        if pixel < 6 or widest == 0:
            return None
        font.setPixelSize(int(pixel))
        return font

    def _room_font(self, font: QFont, texts: np.ndarray, cell: float) -> QFont:
        """The largest type (up to 0.6 of the cell, twice ROOM_LABEL_PX at most), then the
        narrowest, in which every value that can be written whole is, and every other with
        two significant digits where it can, else one ("-.9…" in a wrapped vector's cell,
        not the mark alone); never under ROOM_SMALLEST_PX."""
        room = cell - 3
        top = int(max(self.smallest_px, min(cell * 0.6, 2 * ROOM_LABEL_PX)))
        choices = [(px, s) for px in range(top, self.smallest_px - 1, -1) for s in ROOM_STRETCHES]

        def metrics(px: int, stretch: int) -> QFontMetrics:
            font.setPixelSize(px)
            font.setStretch(stretch)
            return QFontMetrics(font)

        narrowest = metrics(*choices[-1])
        widths: dict[str, int] = {}
        marked = False  # some value has no digit that fits: it is written as the mark alone
        for text in {str(t) for t in texts.ravel() if t}:
            for form in (text, readable_cut(text), readable_cut(text, 1)):  # whole, else cut
                if narrowest.horizontalAdvance(form) <= room:
                    widths[form] = narrowest.horizontalAdvance(form)
                    break
            else:
                marked = True
        whole = sorted(widths, key=widths.__getitem__, reverse=True)[:4]  # the widest decide
        if marked and narrowest.horizontalAdvance(CUT) <= room:
            whole.append(CUT)  # a cell too small for any digit of its value still says so
        px, stretch = next(
            (c for c in choices if all(metrics(*c).horizontalAdvance(w) <= room for w in whole)),
            choices[-1],
        )
        font.setPixelSize(px)
        font.setStretch(stretch)
        return font

    def _draw_labels(self, p: QPainter, labels: np.ndarray, cell: float) -> None:
        font = self.label_font(labels, cell)
        if font is None:
            self.drawn = None
            return
        p.setFont(font)
        if self.room:
            texts = self.room_texts(labels)
            fitted = self.room_labels(labels, QFontMetrics(font), cell)
            self.cut = bool((fitted != texts).any())
            labels = fitted
        self.drawn = labels
        p.setPen(QColor("#17202a"))
        for (r, c), text in np.ndenumerate(labels):
            if text:
                p.drawText(
                    QRectF(c * cell, r * cell, cell, cell), Qt.AlignmentFlag.AlignCenter, text
                )

    def room_texts(self, labels: np.ndarray) -> np.ndarray:
        """Each labelled cell's value in full (the shortest text that reads back as it)."""
        values = self.frame.values
        if values is None or values.shape != labels.shape:
            return labels
        out = np.full(labels.shape, "", dtype=object)
        for (r, c), text in np.ndenumerate(labels):
            if text:
                out[r, c] = exact_text(float(values[r, c]))
        return out

    def room_labels(self, labels: np.ndarray, metrics: QFontMetrics, cell: float) -> np.ndarray:
        """The labels as the room view writes them: each value whole where it fits its cell
        at the room's type, else its leading digits and the legend's mark (never rounded to
        another number)."""
        values = self.frame.values
        if values is None or values.shape != labels.shape:
            return labels
        room = cell - 3

        def fits(text: str) -> bool:
            return metrics.horizontalAdvance(text) <= room

        out = np.full(labels.shape, "", dtype=object)
        known: dict[float, str] = {}
        for (r, c), text in np.ndenumerate(labels):
            if text:
                value = float(values[r, c])
                if value not in known:
                    known[value] = fitted_text(value, fits)
                out[r, c] = known[value]
        return out

    def _draw_overview(self, painter: QPainter, rect: QRectF) -> None:
        frame = self.frame
        assert frame.overview is not None
        size = rect.size().toSize()
        if self._overview is None or self._overview[1].size() != size:
            ov = np.ascontiguousarray(frame.overview, dtype=np.uint8)
            image = QImage(
                ov.data, ov.shape[1], ov.shape[0], 4 * ov.shape[1], QImage.Format.Format_RGBA8888
            )
            scaled = image.scaled(size, mode=Qt.TransformationMode.SmoothTransformation)
            self._overview = (frame.overview_key, QPixmap.fromImage(scaled))
        painter.drawPixmap(rect.topLeft(), self._overview[1])
        painter.setPen(QPen(QColor("#5d6d7e"), 1))
        painter.drawRect(rect)
        rows, cols = frame.shape
        sx, sy = rect.width() / cols, rect.height() / rows
        r0, r1, c0, c1 = frame.window
        painter.setPen(QPen(QColor("#c0392b"), 2))
        painter.drawRect(
            QRectF(
                rect.left() + c0 * sx,
                rect.top() + r0 * sy,
                max((c1 - c0) * sx, 3),
                max((r1 - r0) * sy, 3),
            )
        )
        painter.setFont(self.font())
        painter.setPen(QColor("#34495e"))
        painter.drawText(
            QRectF(rect.left(), rect.bottom() + 2, self.width() - rect.left(), 40),
            Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap,
            OVERVIEW_LABEL,
        )

    # -- mouse ---------------------------------------------------------------------------
    def buffer_element_at(self, x: float, y: float) -> tuple[int, int]:
        """The buffer's (row, col) under a point: a wrapped vector's cell is (0, element)."""
        r, c = self.element_at(x, y)
        wrap = self.frame.wrap
        if r < 0 or not wrap:
            return r, c
        element = r * wrap + c
        return (0, element) if element < self.frame.length else (-1, -1)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        x, y = event.position().x(), event.position().y()
        self.hovered.emit(*self.buffer_element_at(x, y))
        self.setToolTip(self._value_at(x, y))

    def _value_at(self, x: float, y: float) -> str:
        """The exact value of the cell under a point (the cell may show it rounded)."""
        r, c = self.element_at(x, y)
        values = self.frame.values
        r0, _r1, c0, _c1 = self.frame.window
        if r < 0 or values is None or not 0 <= r - r0 < values.shape[0]:
            return ""
        if not 0 <= c - c0 < values.shape[1]:
            return ""
        value = float(values[r - r0, c - c0])
        return f"{value:.7g}" if np.isfinite(value) else ""

    def leaveEvent(self, event: QEvent) -> None:
        self.hovered.emit(-1, -1)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        r, c = self.buffer_element_at(event.position().x(), event.position().y())
        if r >= 0:
            self.clicked.emit(r, c)


class HeatScale(QWidget):
    """The heat map's shared, labelled scale: loads per element, 1 to 1024, logarithmic."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setMinimumHeight(int(QFontMetricsF(self.font()).height() * 2 + 10))
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)

    def sizeHint(self) -> QSize:
        return QSize(400, int(QFontMetricsF(self.font()).height() * 2 + 10))

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        metrics = QFontMetricsF(self.font())
        label = "global loads per element:"
        left = metrics.horizontalAdvance(label) + 12
        painter.setPen(QColor("#1b2631"))
        painter.drawText(
            QRectF(0, 0, left, metrics.height() + 4), Qt.AlignmentFlag.AlignLeft, label
        )
        width = max(self.width() - left - 30, 50)
        counts = 2 ** np.linspace(0, np.log2(HEAT_TOP), 64)
        colours = heat_colours(counts)
        bar_h = metrics.height()
        for i, colour in enumerate(colours):
            painter.fillRect(
                QRectF(left + i * width / 64, 2, width / 64 + 1, bar_h), QColor(*colour.tolist())
            )
        for tick in HEAT_TICKS:
            x = left + np.log2(tick) / np.log2(HEAT_TOP) * width
            painter.drawLine(QPointF(x, 2 + bar_h), QPointF(x, 6 + bar_h))
            painter.drawText(
                QRectF(x - 30, 6 + bar_h, 60, metrics.height()),
                Qt.AlignmentFlag.AlignHCenter,
                str(tick),
            )
