"""A label that never widens its layout: long words are broken where they must be, the text
is cut to a few lines with "…", and the whole text is its tooltip.

A one-line failure (a compiler's include path, a 60 s timeout naming every option) set on a
plain word-wrapped QLabel asks for the width of its longest word, which pushes a presenter's
right column off the screen.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QFontMetrics, QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget

BREAK = "\u200b"  # a zero-width space: where a long word may break
LONG_WORD = 24  # characters of a word before a break is offered


def breakable(text: str) -> str:
    """``text`` with a break point offered every LONG_WORD characters of a long word, and
    after the slashes, commas and equals signs inside it (paths, option lists)."""

    def split(match: re.Match[str]) -> str:
        word = re.sub(r"([/=,;:])", r"\1" + BREAK, match[0])
        parts = word.split(BREAK)
        return BREAK.join(
            BREAK.join(p[i : i + LONG_WORD] for i in range(0, len(p), LONG_WORD)) for p in parts
        )

    return re.sub(r"\S{" + str(LONG_WORD) + ",}", split, text)


class FittedLabel(QLabel):
    """Plain text, word-wrapped inside the width it is given, at most ``max_lines`` lines
    (the rest elided with "…"); ``text()`` and the tooltip give the whole text."""

    def __init__(self, text: str = "", max_lines: int = 3, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.max_lines = max_lines
        self._full = ""
        self.setWordWrap(True)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setText(text)

    def text(self) -> str:
        return self._full

    def setText(self, text: str) -> None:
        self._full = text
        self._fit()

    def shown_text(self) -> str:
        """What the label shows now (``text()`` with break points, perhaps cut)."""
        return super().text().replace(BREAK, "")

    def elided(self) -> bool:
        return self.shown_text().rstrip("…") != self._full.rstrip("…")

    def minimumSizeHint(self) -> QSize:
        return QSize(40, super().minimumSizeHint().height())

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        """As much of the text as ``max_lines`` lines of the present width hold, measured
        as the label itself lays text out."""
        text = breakable(self._full)
        width = self.width()
        if width > 40:
            super().setText("X")
            limit = self.heightForWidth(width) + (self.max_lines - 1) * self._line()
            if self._height(text, width) > limit:
                lo, hi = 0, len(text)
                while lo < hi:  # the longest beginning that fits, with "…"
                    mid = (lo + hi + 1) // 2
                    if self._height(text[:mid].rstrip() + "…", width) <= limit:
                        lo = mid
                    else:
                        hi = mid - 1
                text = text[:lo].rstrip() + "…"
        super().setText(text)
        self.setToolTip(self._full if self.elided() else "")

    def _line(self) -> int:
        return QFontMetrics(self.font()).lineSpacing()

    def _height(self, text: str, width: int) -> int:
        super().setText(text)
        return self.heightForWidth(width)
