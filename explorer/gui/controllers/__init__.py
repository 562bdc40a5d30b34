"""Controllers: the only places where the model, the state and the views meet.

Each controller owns one concern (running, sweeping, presenting, watching kernel files,
exporting, sessions). It is handed the :class:`Views` the window made, the window's actions
and the shared :class:`~explorer.gui.state.AppState`; views never call each other.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtWidgets import (
    QMainWindow,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QWidget,
)

from explorer.gui.config_panel import ConfigPanel
from explorer.gui.execution_view import ExecutionView
from explorer.gui.findings_view import FindingsView
from explorer.gui.result_view import ResultView
from explorer.gui.roofline_view import RooflineView
from explorer.gui.source_view import SourceView
from explorer.gui.sweep_view import SweepView
from explorer.gui.timing_view import TimingView


@dataclass(frozen=True)
class Views:
    """The widgets the window laid out, for the controllers to fill."""

    window: QMainWindow  # parent of dialogs; its status bar carries messages
    panel: ConfigPanel
    panel_scroll: QScrollArea
    result_view: ResultView
    timing_view: TimingView
    source_view: SourceView
    findings_view: FindingsView
    execution_view: ExecutionView
    roofline_view: RooflineView
    sweep_view: SweepView
    tabs: QTabWidget
    stack: QStackedWidget
    presenter_split: QSplitter
    presenter_side: QSplitter  # inside presenter_split, beside the execution view
    run_button: QPushButton
    progress: QProgressBar

    def say(self, text: str) -> None:
        """A message in the status bar."""
        self.window.statusBar().showMessage(text)

    def show_page(self, page: QWidget) -> None:
        """Bring a tab to the front (a no-op for a view shown in presenter mode)."""
        if self.tabs.indexOf(page) >= 0:
            self.tabs.setCurrentWidget(page)

    def current_page(self) -> QWidget:
        """What is on screen: the tab shown, or the presenter layout."""
        if self.stack.currentWidget() is self.presenter_split:
            return self.presenter_split
        return self.tabs.currentWidget()

    def start_progress(self, total: int) -> None:
        self.progress.setRange(0, total)
        self.progress.setValue(0)
        self.progress.setVisible(True)
