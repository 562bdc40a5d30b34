"""The main window: configuration on the left; result, timing, source and findings on tabs.

The window creates the widgets, lays them out, builds its menus and toolbar from the action
table (:mod:`explorer.gui.actions`) and wires the controllers (:mod:`explorer.gui.controllers`),
where the model, the state and the views meet. Views never talk to each other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QSettings, QSize, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import (
    QDockWidget,
    QMainWindow,
    QMenu,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QToolBar,
)

from explorer.engine.header.catalog import CatalogError, find_variant
from explorer.gui import settings as settings_store
from explorer.gui.actions import COMMANDS, build_actions
from explorer.gui.config_panel import ConfigPanel
from explorer.gui.controllers import Views
from explorer.gui.controllers.exports import ExportController
from explorer.gui.controllers.kernel_files import KernelFilesController
from explorer.gui.controllers.presenter import PresenterController
from explorer.gui.controllers.runs import RunCompareController
from explorer.gui.controllers.sessions import SessionController
from explorer.gui.controllers.sweep import SweepController
from explorer.gui.execution_view import ExecutionView, run_arrays
from explorer.gui.findings_view import FindingsView
from explorer.gui.model import ConfigModel
from explorer.gui.result_view import ResultView
from explorer.gui.roofline_view import RooflineView
from explorer.gui.source_view import SourceView
from explorer.gui.state import AppState
from explorer.gui.sweep_view import SweepView
from explorer.gui.timing_view import TimingView
from explorer.gui.worker import RunController
from explorer.paths import resources_dir
from explorer.session import SessionError, load_session

PRESENTER_STYLE = """
QWidget {{ font-size: {base}pt; background: #ffffff; color: #111111; }}
QPushButton {{ font-size: {base}pt; padding: 3px 8px; }}
QLabel#badge {{ font-size: {badge}pt; }}
QLabel#step-label {{ font-size: {step}pt; font-weight: bold; }}
QLabel#stage-caption {{ font-size: {step}pt; color: #1a5276; }}
"""


def presenter_style(width: int, height: int) -> str:
    """Presenter mode's large type, scaled to the screen: 13 pt at 1920×1080, 9 pt on a
    1280×720 projector, so nothing is cut off or drawn over its neighbour."""
    scale = min(width / 1920, height / 1080)
    base = max(9, round(13 * scale))
    return PRESENTER_STYLE.format(base=base, badge=round(base * 1.4), step=round(base * 1.25))


# The three views presenter mode shows side by side, with their tab titles and positions.
PRESENTED = (("result_view", "Result"), ("execution_view", "Execution"), ("timing_view", "Timing"))


@dataclass(frozen=True)
class Controllers:
    """One controller per concern; the action table names them by these field names."""

    runs: RunCompareController
    sweep: SweepController
    presenter: PresenterController
    kernels: KernelFilesController
    exports: ExportController
    sessions: SessionController


class MainWindow(QMainWindow):
    """The application window; ``worker`` runs OpenCL off the GUI thread."""

    def __init__(
        self, worker: RunController | None = None, settings: QSettings | None = None
    ) -> None:
        super().__init__()
        self.setWindowTitle("OpenCL Kernel Explorer")
        self.setAcceptDrops(True)
        self.model = ConfigModel()
        self.state = AppState()
        self.settings = settings if settings is not None else QSettings()
        self.worker = worker or RunController(self)
        self.views = self._make_views()
        handlers: dict[str, Callable[[], object]] = {}
        self.commands = build_actions(self, lambda name: lambda: handlers[name]())
        self.lessons = self._make_lessons_menu()
        self._make_toolbar()
        self.controllers = self._make_controllers()
        for command in COMMANDS:
            handlers[command.handler] = self._resolve(command.handler)
        self._restore()
        self.worker.discover_devices()

    # -- widgets and layout --------------------------------------------------------------
    def _make_views(self) -> Views:
        panel = ConfigPanel(self.model)
        panel_scroll = QScrollArea()
        panel_scroll.setWidget(panel)
        panel_scroll.setWidgetResizable(True)
        panel_scroll.setMinimumWidth(360)
        dock = QDockWidget("Configuration", self)
        dock.setObjectName("configuration")
        dock.setWidget(panel_scroll)
        dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, dock)

        result, execution, timing = ResultView(), ExecutionView(), TimingView()
        source, findings = SourceView(), FindingsView()
        roofline, sweep = RooflineView(), SweepView()
        tabs = QTabWidget()
        # No frame around the pages: drawing it filled the whole area on every repaint.
        tabs.setDocumentMode(True)
        tabs.addTab(result, "Result")
        tabs.addTab(execution, "Execution")
        tabs.addTab(timing, "Timing")
        tabs.addTab(source, "Kernel source")
        tabs.addTab(findings, "Findings")
        tabs.addTab(roofline, "Roofline")
        tabs.addTab(sweep, "Sweep")
        presenter_split = QSplitter(Qt.Orientation.Horizontal)
        presenter_side = QSplitter(Qt.Orientation.Vertical)
        presenter_split.addWidget(presenter_side)
        stack = QStackedWidget()
        stack.addWidget(tabs)
        stack.addWidget(presenter_split)
        self.setCentralWidget(stack)

        progress = QProgressBar()
        progress.setMaximumWidth(220)
        progress.setVisible(False)
        self.statusBar().addPermanentWidget(progress)
        return Views(
            window=self,
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
        )

    def _make_toolbar(self) -> None:
        toolbar = QToolBar("Run")
        toolbar.setObjectName("run-toolbar")
        toolbar.setStyleSheet("QToolBar { border: none; background: palette(window); }")  # flat
        self.addToolBar(toolbar)
        self.views.run_button.setEnabled(False)
        toolbar.addWidget(self.views.run_button)
        for command in COMMANDS:
            if command.toolbar:
                toolbar.addAction(self.commands[command.key])

    def _make_lessons_menu(self) -> dict[str, QAction]:
        """The shipped lessons (``resources/lessons/*.kexp.json``), one menu item each, before
        Help: a session that opens a configuration worth showing and traces it."""
        menu = QMenu("L&essons", self)  # Alt+L is the Local size field's
        help_menu = self.menuBar().actions()[-1]
        self.menuBar().insertMenu(help_menu, menu)
        actions: dict[str, QAction] = {}
        for path in sorted((resources_dir() / "lessons").glob("*.kexp.json")):
            stem = path.name.removesuffix(".kexp.json")
            number, _, words = stem.partition("-")
            title = f"{number} · {words.replace('-', ' ').capitalize()}"
            action = QAction(title, self)
            action.setStatusTip(f"Open and trace the lesson {path.name}")
            action.triggered.connect(lambda _checked=False, p=str(path): self.open_lesson(p))
            menu.addAction(action)
            actions[title] = action
        return actions

    def open_lesson(self, path: str) -> None:
        """Open a lesson's session, then trace it once a device is ready (around the group
        its view names)."""
        try:
            session = load_session(path)
        except (SessionError, CatalogError) as exc:
            QMessageBox.warning(self, "Cannot open the lesson", str(exc))
            return
        self.controllers.sessions.show(session)
        named = session.view.get("group")
        group = (int(named[0]), int(named[1]), 0) if named else None

        def trace() -> None:
            if self.model.device is None:
                QTimer.singleShot(250, trace)
            elif session.anyway:
                self.controllers.runs.trace_anyway(group)
            else:
                self.controllers.runs.trace(group)

        trace()

    def set_presenter_layout(self, on: bool, full_screen: bool) -> None:
        """Presenter mode's layout: no menus, toolbar or configuration; the execution beside
        the result and the timing bars; large type; full screen when asked."""
        views = self.views
        for widget in (
            self.menuBar(),
            self.findChild(QToolBar, "run-toolbar"),
            self.findChild(QDockWidget, "configuration"),
        ):
            if widget is not None:
                widget.setVisible(not on)
        presented = [getattr(views, name) for name, _ in PRESENTED]
        if on:
            for view in presented:
                views.tabs.removeTab(views.tabs.indexOf(view))
            result, execution, timing = presented
            views.presenter_split.insertWidget(0, execution)
            views.presenter_side.addWidget(result)
            views.presenter_side.addWidget(timing)
            for view in presented:
                view.show()  # a widget taken out of a tab page stays hidden otherwise
            views.presenter_split.setStretchFactor(0, 3)
            views.presenter_split.setStretchFactor(1, 2)
            views.presenter_split.setSizes([3 * self.width() // 5, 2 * self.width() // 5])
            views.stack.setCurrentWidget(views.presenter_split)
            execution.code.setVisible(False)  # the step's line is shown above the cells
            screen = self.screen().geometry() if full_screen else self.geometry()
            self.setStyleSheet(presenter_style(screen.width(), screen.height()))
            if full_screen:
                self.showFullScreen()
            execution.setFocus()
        else:
            for index, (view, (_name, title)) in enumerate(zip(presented, PRESENTED, strict=True)):
                views.tabs.insertTab(index, view, title)
            views.stack.setCurrentWidget(views.tabs)
            views.execution_view.code.setVisible(True)
            self.setStyleSheet("")
            if self.isFullScreen():
                self.showNormal()

    # -- controllers ---------------------------------------------------------------------
    def _make_controllers(self) -> Controllers:
        model, state, views, actions, worker = (
            self.model,
            self.state,
            self.views,
            self.commands,
            self.worker,
        )
        runs = RunCompareController(model, state, views, actions, worker)
        presenter = PresenterController(
            model, state, views, actions, worker, runs, self.set_presenter_layout
        )
        presenter.presenting_changed.connect(runs.refresh_actions)
        runs.trace_shown.connect(self._show_values)
        return Controllers(
            runs=runs,
            sweep=SweepController(model, views, worker),
            presenter=presenter,
            kernels=KernelFilesController(model, state, views, runs),
            exports=ExportController(state, views),
            sessions=SessionController(model, state, views),
        )

    def _show_values(self) -> None:
        """The traced run's inputs and output: the values the execution view draws."""
        traced = self.state.traced
        if traced is not None and traced.trace is not None:
            self.views.execution_view.set_arrays(run_arrays(traced.result))

    def cycle_colouring(self) -> None:
        """The execution view's cells: by step, by value, by who touched them."""
        self.views.execution_view.cycle_colouring()

    def _resolve(self, handler: str) -> Callable[[], object]:
        """``"runs.run"`` → the runs controller's ``run``; ``"window.…"`` → this window's."""
        owner, method = handler.split(".")
        target = self if owner == "window" else getattr(self.controllers, owner)
        function: Callable[[], object] = getattr(target, method)
        return function

    def open_start(self) -> None:
        """The window started with no arguments opens on something alive: the last session's
        configuration (restored from the settings) or, on a first start, the IOU demo (the
        tiled matmul at 768³ on the IOU input), ready to run with the hint on the result.
        It is not run by itself: on a CPU device its eleven launches take seconds, and a
        lecturer starts it when the room is watching."""
        if self.restored:
            what = "The last session is open"
        else:
            self.model.set_family("matmul")
            self.model.set_variant(find_variant("matmul", "tiled"))
            for name in ("M", "N", "K"):
                self.model.set_size(name, START_SIZE)
            self.model.set_local(None)
            self.model.set_input("iou", "IOU")
            what = f"The IOU demo is ready: tiled matmul, {START_SIZE}³, the IOU input"
        self.views.show_page(self.views.result_view)
        self.views.result_view.show_hint(f"{what}. Press Ctrl+R to run.")

    def _restore(self) -> None:
        self.restored = self.settings.contains("format")
        self.state.notice = settings_store.restore(self.settings, self.model)
        self.restored = self.restored and self.state.notice is None
        geometry = self.settings.value("geometry")
        if geometry is None or not self.restoreGeometry(geometry):
            self.resize(first_size(self.screen().availableGeometry().size()))
        state = self.settings.value("state")
        if state is not None:
            self.restoreState(state)
        self.statusBar().showMessage(self.state.notice or "Looking for OpenCL devices …")

    # -- window events -------------------------------------------------------------------
    def about(self) -> None:
        QMessageBox.about(
            self,
            "OpenCL Kernel Explorer",
            "See how a GPU kernel really works: run, verify, time and trace OpenCL kernels.",
        )

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        urls = event.mimeData().urls()
        if urls and self.controllers.kernels.accepts(urls[0].toLocalFile()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        self.controllers.kernels.open_dropped(event.mimeData().urls()[0].toLocalFile())

    def closeEvent(self, event: QCloseEvent) -> None:
        settings_store.save(self.settings, self.model, self.saveGeometry(), self.saveState())
        self.worker.shutdown()
        super().closeEvent(event)

    def show_fitted(self) -> None:
        """Show the window, maximised where it would not fit with its frame (a 1280×720
        projector, or a size saved on a larger monitor): the window manager then fits it,
        title bar included, so the status bar stays on screen."""
        if fits(self.size(), self.screen().availableGeometry().size()):
            self.show()
        else:
            self.showMaximized()


START_SIZE = 768  # the IOU demo's M = N = K

# Room for a window manager's title bar and borders around the window.
FRAME_ALLOWANCE = QSize(16, 48)


def fits(size: QSize, available: QSize) -> bool:
    """Whether a window of ``size``, with its frame, fits on a screen of ``available``."""
    framed = size + FRAME_ALLOWANCE
    return framed.width() <= available.width() and framed.height() <= available.height()


def first_size(available: QSize) -> QSize:
    """The window's size on a first start: 1500×950, or the whole screen where it is smaller
    (a 1280×720 projector), so nothing starts below the screen's edge."""
    return QSize(min(1500, available.width()), min(950, available.height()))
