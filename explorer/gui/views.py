"""The window's widgets, as it lays them out: the configuration in a dock on the left; the
result, execution, timing, source, findings, roofline and sweep on tabs; presenter mode's
split; the status bar with its progress bar.

:class:`Views` is also the status line and the pages the controllers are handed (see
:mod:`explorer.gui.controllers.roles`): a controller names a page, never a widget.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDockWidget,
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
from explorer.gui.controllers.roles import PAGES, Page
from explorer.gui.execution_view import ExecutionView
from explorer.gui.exercise_panel import ExercisePanel
from explorer.gui.findings_view import FindingsView
from explorer.gui.model import ConfigModel
from explorer.gui.result_view import ResultView
from explorer.gui.roofline_view import RooflineView
from explorer.gui.source_view import SourceView
from explorer.gui.sweep_view import SweepView
from explorer.gui.timing_view import TimingView
from explorer.gui.work_progress import WorkProgress

# The tabs, in order, with their titles.
TABS: tuple[tuple[Page, str], ...] = (
    ("result", "Result"),
    ("execution", "Execution"),
    ("timing", "Timing"),
    ("source", "Kernel source"),
    ("findings", "Findings"),
    ("roofline", "Roofline"),
    ("sweep", "Sweep"),
)


@dataclass(frozen=True)
class Views:
    """The widgets the window laid out."""

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
    work: WorkProgress  # work in flight: its elapsed time and Cancel
    exercise_panel: ExercisePanel  # the open exercise (placed by explorer.gui.exercise_room)

    # -- the status line -----------------------------------------------------------------
    def say(self, text: str) -> None:
        """A message in the status bar."""
        self.window.statusBar().showMessage(text)

    def show_notice(self, notice: str | None) -> None:
        """A note kept in the status bar (settings reset, the session's device)."""
        if notice:
            self.say(notice)

    def work_started(self, what: str) -> None:
        self.work.start(what)

    def work_building(self, text: str) -> None:
        self.work.building(text)

    def work_ended(self) -> float:
        return self.work.stop()

    def start_progress(self, total: int) -> None:
        self.progress.setRange(0, total)
        self.progress.setValue(0)
        self.progress.setVisible(True)

    def set_progress(self, done: int) -> None:
        self.progress.setValue(done)

    def end_progress(self) -> None:
        self.progress.setVisible(False)

    # -- the pages -----------------------------------------------------------------------
    def page(self, page: Page) -> QWidget:
        widget: QWidget = getattr(self, f"{page}_view")
        return widget

    def show_page(self, page: Page) -> None:
        """Bring a tab to the front (a no-op for a view shown in presenter mode). A source
        the person may edit takes the keys: brought forward by a build error or a line
        named, it is where they type next (the tab left before took the focus with it)."""
        widget = self.page(page)
        if self.tabs.indexOf(widget) >= 0:
            self.tabs.setCurrentWidget(widget)
            if page == "source" and self.source_view.editable():
                self.source_view.editor.setFocus(Qt.FocusReason.OtherFocusReason)

    def current_tab(self) -> Page | None:
        shown = self.tabs.currentWidget()
        return next((p for p in PAGES if self.page(p) is shown), None)

    def current_page(self) -> QWidget:
        """What is on screen: the tab shown, or the presenter layout."""
        if self.stack.currentWidget() is self.presenter_split:
            return self.presenter_split
        return self.tabs.currentWidget()


def make_views(window: QMainWindow, model: ConfigModel) -> Views:
    """Make the widgets and lay them out in ``window``."""
    panel = ConfigPanel(model)
    panel_scroll = QScrollArea()
    panel_scroll.setWidget(panel)
    panel_scroll.setWidgetResizable(True)
    panel_scroll.setMinimumWidth(360)
    dock = QDockWidget("Configuration", window)
    dock.setObjectName("configuration")
    dock.setWidget(panel_scroll)
    dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable)
    window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)

    result, execution, timing = ResultView(), ExecutionView(), TimingView()
    source, findings = SourceView(), FindingsView()
    roofline, sweep = RooflineView(), SweepView()
    tabs = QTabWidget()
    # No frame around the pages: drawing it filled the whole area on every repaint.
    tabs.setDocumentMode(True)
    for widget, (_page, title) in zip(
        (result, execution, timing, source, findings, roofline, sweep), TABS, strict=True
    ):
        tabs.addTab(widget, title)
    presenter_split = QSplitter(Qt.Orientation.Horizontal)
    presenter_side = QSplitter(Qt.Orientation.Vertical)
    presenter_split.addWidget(presenter_side)
    stack = QStackedWidget()
    stack.addWidget(tabs)
    stack.addWidget(presenter_split)
    window.setCentralWidget(stack)

    progress = QProgressBar()
    progress.setMaximumWidth(220)
    progress.setVisible(False)
    window.statusBar().addPermanentWidget(progress)
    work = WorkProgress()
    window.statusBar().addPermanentWidget(work)
    return Views(
        window=window,
        panel=panel,
        panel_scroll=panel_scroll,
        result_view=result,
        timing_view=timing,
        source_view=source,
        findings_view=findings,
        execution_view=execution,
        roofline_view=roofline,
        sweep_view=sweep,
        tabs=tabs,
        stack=stack,
        presenter_split=presenter_split,
        presenter_side=presenter_side,
        run_button=QPushButton("▶ Run  (Ctrl+R)"),
        progress=progress,
        work=work,
        exercise_panel=ExercisePanel(),
    )
