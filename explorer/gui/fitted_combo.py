"""A drop-down whose closed box never cuts its choice mid-word at its edge.

A seed's variant ("Seed 004 #1: the vector in local memory (mem_fence)  ⚠ known bug") is
wider than the configuration panel at 1280×720, and a plain QComboBox clips it ("⚠ k"). The
box says the choice whole where it fits; else without a trailing note's words after its mark
(the "⚠", the bug itself written in red below the box); else the name shortened with "…",
the mark kept. The list, opened, and the tooltip give the whole text.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtGui import QPaintEvent
from PySide6.QtWidgets import QComboBox, QStyle, QStyleOptionComboBox, QStylePainter, QWidget

NOTE_MARK = "⚠"
MINIMUM_LETTERS = 12  # the narrowest box: a short name whole, a long one shortened


class FittedCombo(QComboBox):
    """A QComboBox whose closed box shows as much of its choice as reads well. Its width
    never follows its choice: a plain one measures its contents again each time it is
    shown, so after presenter mode a seed's long name widened the configuration panel past
    its dock (a sideways scroll bar, every text in the panel cut at the dock's edge)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.setMinimumContentsLength(MINIMUM_LETTERS)

    def _field(self) -> tuple[QStyleOptionComboBox, int]:
        option = QStyleOptionComboBox()
        self.initStyleOption(option)
        rect = self.style().subControlRect(
            QStyle.ComplexControl.CC_ComboBox,
            option,
            QStyle.SubControl.SC_ComboBoxEditField,
            self,
        )
        return option, rect.width() - 4  # the style's own margin inside the field

    def shown_text(self) -> str:
        """The text the closed box shows at its present width."""
        _option, width = self._field()
        return fitted_choice(self.currentText(), lambda t: self._advance(t) <= width)

    def _advance(self, text: str) -> int:
        return self.fontMetrics().horizontalAdvance(text)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QStylePainter(self)
        option, _width = self._field()
        painter.drawComplexControl(QStyle.ComplexControl.CC_ComboBox, option)
        option.currentText = self.shown_text()
        painter.drawControl(QStyle.ControlElement.CE_ComboBoxLabel, option)
        self.setToolTip(self.currentText() if option.currentText != self.currentText() else "")


def fitted_choice(text: str, fits: Callable[[str], bool]) -> str:
    """``text`` whole where it fits; else up to its note's mark; else the name before the
    mark cut with "…" and the mark kept."""
    if fits(text):
        return text
    name, mark, _note = text.partition(NOTE_MARK)
    name = name.rstrip()
    marked = f"{name} {mark}" if mark else name
    if fits(marked):
        return marked
    suffix = f" {mark}" if mark else ""
    for end in range(len(name) - 1, 0, -1):
        shortened = name[:end].rstrip() + "…" + suffix
        if fits(shortened):
            return shortened
    return "…" + suffix
