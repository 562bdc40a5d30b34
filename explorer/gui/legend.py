"""The execution view's legend: what each colour and box means, rendered once per width and
type size (presenter mode's large type gives a large legend, wrapped to the view's width)."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QRectF, QSize
from PySide6.QtGui import QFontInfo, QPainter, QPaintEvent, QPixmap, QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

KEYS = (
    "<span style='color:#3498db'>■</span> read this step &nbsp; "
    "<span style='color:#e67e22'>■</span> written &nbsp; "
    "<span style='color:#8e44ad'>■</span> both &nbsp; "
    "<span style='color:#16a085'>■</span> the selected work-item (click a cell, or "
    "Shift+arrow, to pick another) &nbsp; <span style='color:#c0392b'>□</span> the group's "
    "tile this step "
    "&nbsp; <span style='color:#e67e22'>□</span> the group's tile of the output &nbsp; "
    "<b>1.2…</b> more digits than the cell holds (hover the cell for the value)"
)
# The room view's keys (presenter mode, a slide): one line at 1280×720, and what the picture
# shows, never how to click or hover (nobody does in a talk, nor in a video).
ROOM_KEYS = (
    "<span style='color:#3498db'>■</span> read &nbsp; "
    "<span style='color:#e67e22'>■</span> written &nbsp; "
    "<span style='color:#8e44ad'>■</span> both &nbsp; "
    "<span style='color:#16a085'>■</span> work-item followed &nbsp; "
    "<span style='color:#c0392b'>□</span> tile this step &nbsp; "
    "<span style='color:#e67e22'>□</span> tile of the output &nbsp; "
    "<b>1.2…</b> more digits"
)
DETAILS = (
    "darker = larger value · thick lines: the tile grid · local memory: the values "
    "copied in (faded: an earlier phase) · work-groups: darker started later"
)
LEGEND = f"{KEYS}<br>{DETAILS}"


class FrozenLabel(QWidget):
    """A rich-text label rendered into a pixmap (rich text is costly to lay out on every
    repaint), again only when its width or its type size changes: wrapped, never shrunk, so
    its type stays the size the window's style gives it."""

    def __init__(self, label: QLabel, compact: str = "") -> None:
        super().__init__()
        self.label = label
        self.full = label.text()
        self.compact = compact or self.full  # the text in the room view: its keys only
        label.setWordWrap(True)
        self.pixmap = QPixmap()
        self._key: tuple[int, int] | None = None
        self.setToolTip(label.text())
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self._render(max(self.width(), 400))

    def set_compact(self, on: bool) -> None:
        """The keys only (the room view, where every line of the screen counts), or all."""
        text = self.compact if on else self.full
        if text != self.label.text():
            self.label.setText(text)
            self._key = None
            self._render(max(self.width(), 100))

    def sizeHint(self) -> QSize:
        return QSize(400, self.pixmap.height())

    def text_pixel_size(self) -> int:
        """The pixel size its text is drawn at."""
        return QFontInfo(self.label.font()).pixelSize()

    def _render(self, width: int) -> None:
        key = (width, QFontInfo(self.font()).pixelSize())
        if key == self._key:
            return
        self._key = key
        self.label.setFont(self.font())
        height = self.label.heightForWidth(width)
        self.label.resize(width, max(height, 1))
        self.pixmap = self.label.grab()
        self.setFixedHeight(self.pixmap.height())
        self.update()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() in (QEvent.Type.FontChange, QEvent.Type.StyleChange):
            self._render(max(self.width(), 100))

    def resizeEvent(self, event: QResizeEvent) -> None:
        self._render(max(self.width(), 100))

    def paintEvent(self, event: QPaintEvent) -> None:
        QPainter(self).drawPixmap(
            QRectF(self.pixmap.rect()), self.pixmap, QRectF(self.pixmap.rect())
        )


def execution_legend() -> FrozenLabel:
    """The legend under the animation."""
    return FrozenLabel(QLabel(LEGEND), compact=ROOM_KEYS)
