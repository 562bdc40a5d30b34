"""The execution view's legend: what each colour and box means, rendered once."""

from __future__ import annotations

from PySide6.QtCore import QRectF
from PySide6.QtGui import QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

LEGEND = (
    "<span style='color:#3498db'>■</span> read this step &nbsp; "
    "<span style='color:#e67e22'>■</span> written &nbsp; "
    "<span style='color:#8e44ad'>■</span> both &nbsp; "
    "<span style='color:#16a085'>■</span> the selected work-item (click a cell to pick "
    "another) &nbsp; <span style='color:#c0392b'>□</span> the group's tile this step "
    "&nbsp; <span style='color:#e67e22'>□</span> the group's tile of the output<br>"
    "darker = larger value · thick lines: the tile grid · local memory: the values "
    "copied in (faded: an earlier phase) · work-groups: darker started later"
)


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

    def resizeEvent(self, event: QResizeEvent) -> None:
        scale = min(1.0, self.width() / max(self.pixmap.width(), 1))
        self.setFixedHeight(int(self.pixmap.height() * scale) + 1)

    def paintEvent(self, event: QPaintEvent) -> None:
        scale = min(1.0, self.width() / max(self.pixmap.width(), 1))
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        painter.drawPixmap(
            QRectF(0, 0, self.pixmap.width() * scale, self.pixmap.height() * scale),
            self.pixmap,
            QRectF(self.pixmap.rect()),
        )


def execution_legend() -> FrozenLabel:
    """The legend under the animation."""
    return FrozenLabel(QLabel(LEGEND))
