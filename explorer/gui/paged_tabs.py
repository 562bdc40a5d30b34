"""Tabs a keyboard walks: Ctrl+PgDown and Ctrl+PgUp (as in a browser) go to the next and
the previous tab, round at the ends, besides Qt's own Ctrl+Tab and Ctrl+Shift+Tab."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QTabWidget

_STEPS = {Qt.Key.Key_PageDown: 1, Qt.Key.Key_PageUp: -1}


class PagedTabs(QTabWidget):
    """A tab widget whose tabs Ctrl+PgDown and Ctrl+PgUp walk, wherever its focus is."""

    def keyPressEvent(self, event: QKeyEvent) -> None:
        step = _STEPS.get(Qt.Key(event.key()))
        ctrl = event.modifiers() == Qt.KeyboardModifier.ControlModifier
        if step is None or not ctrl or self.count() < 2:
            super().keyPressEvent(event)
            return
        index = self.currentIndex()
        for _ in range(self.count()):  # the next enabled tab
            index = (index + step) % self.count()
            if self.isTabEnabled(index):
                break
        self.setCurrentIndex(index)
        event.accept()
