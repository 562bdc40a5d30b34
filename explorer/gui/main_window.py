"""The main window: configuration on the left; result, timing, source and findings on tabs.

The window lays out the views (:mod:`explorer.gui.views`), builds its menus and toolbar from
the actions its controllers declare (:mod:`explorer.gui.actions`) and wires the pieces
(:mod:`explorer.gui.wiring`): the controllers (:mod:`explorer.gui.controllers`) are where the
model, the state and the views meet; views follow the state and never talk to each other.
"""

from __future__ import annotations

from PySide6.QtCore import QByteArray, QRect, QSettings, QSize, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QDockWidget, QLayout, QMainWindow, QMenu, QToolBar

from explorer.gui import settings as settings_store
from explorer.gui.actions import AppContext, build_actions, commands
from explorer.gui.controllers.presenter import stages_ahead
from explorer.gui.controllers.sessions import lesson_title
from explorer.gui.exercise_room import install_exercises
from explorer.gui.model import ConfigModel
from explorer.gui.room_view import presenter_style, set_room_view
from explorer.gui.stage_keys import StageKeys, key_code, key_strip
from explorer.gui.state import AppState
from explorer.gui.views import make_views
from explorer.gui.wiring import (
    connect_views,
    follow_state,
    make_controllers,
    subscribe_views,
)
from explorer.gui.worker import Worker
from explorer.paths import resources_dir

# The three views presenter mode shows side by side, with their tab titles and positions.
PRESENTED = (("result_view", "Result"), ("execution_view", "Execution"), ("timing_view", "Timing"))


class MainWindow(QMainWindow):
    """The application window; ``worker`` runs OpenCL off the GUI thread."""

    def __init__(self, worker: Worker | None = None, settings: QSettings | None = None) -> None:
        super().__init__()
        self.setWindowTitle("OpenCL Kernel Explorer")
        self.setAcceptDrops(True)
        self.model = ConfigModel()
        self.state = AppState()
        self.settings = settings if settings is not None else QSettings()
        self.worker = worker or Worker(self)
        self.views = make_views(self, self.model)
        subscribe_views(self.views, self.state)
        self.controllers = make_controllers(
            self,
            self.model,
            self.state,
            self.worker,
            self.views,
            self.set_presenter_layout,
            self.settings,
        )
        self.controllers.sessions.opened_file = self.controllers.kernels.watch
        self.controllers.captures.before_replacing = lambda: settings_store.save_configuration(
            self.settings, self.model
        )
        self.commands = build_actions(self, self.controllers, AppContext(self.state, self.model))
        connect_views(self.views, self.controllers, self.commands)
        follow_state(self.commands, self.state, self.model)
        # The layout presenter mode leaves: panels, geometry, maximised or not, the tab shown.
        self._before_presenting: tuple[QByteArray, QByteArray, bool, int] | None = None
        self._window_rect = QRect()
        self.lessons = self._make_lessons_menu()
        self._make_toolbar()
        self.stage_keys = self._make_stage_keys()
        for event in (self.state.events.working, self.state.events.tour_stage):
            event.connect(self._show_key_strip)
        self._restore()
        self.exercises = install_exercises(self, self.views, self.state, self.controllers.exercises)
        self.worker.discover_devices()

    def _make_toolbar(self) -> None:
        toolbar = QToolBar("Run")
        toolbar.setObjectName("run-toolbar")
        toolbar.setStyleSheet("QToolBar { border: none; background: palette(window); }")  # flat
        self.addToolBar(toolbar)
        self.views.run_button.setEnabled(self.commands["run"].isEnabled())
        toolbar.addWidget(self.views.run_button)
        for action in commands():
            if action.toolbar:
                toolbar.addAction(self.commands[action.key])

    def _make_stage_keys(self) -> StageKeys:
        """The actions' stepping keys (Space, ← →, Home/End, Page Up/Down, [ ]), taken
        wherever the execution view is visible and no text field has the focus."""
        bindings = {
            key_code(key): self.commands[action.key].trigger
            for action in commands()
            for key in action.keys
        }
        view = self.views.execution_view
        keys = StageKeys(self, view, self.state, bindings)
        view.shown.connect(keys.sync)
        keys.sync()
        return keys

    def _show_key_strip(self, *_: object) -> None:
        """The presenter's key strip as the keys act now (the tour's stages, work running)."""
        if self.state.presenting or self._before_presenting is not None:
            strip = key_strip(
                commands(), touring=stages_ahead(self.state), working=self.state.working
            )
            self.views.execution_view.set_key_strip(strip)

    def _make_lessons_menu(self) -> dict[str, QAction]:
        """The shipped lessons (``resources/lessons/*.kexp.json``), one menu item each, before
        Help: a session that opens a configuration worth showing and traces it."""
        menu = QMenu("&Lessons", self)
        help_menu = self.menuBar().actions()[-1]
        self.menuBar().insertMenu(help_menu, menu)
        actions: dict[str, QAction] = {}
        for path in sorted((resources_dir() / "lessons").glob("*.kexp.json")):
            title = lesson_title(path)
            # The number it is written with is its key in the open menu (Alt+L, 4).
            shown = title.replace("&", "&&")
            action = QAction(f"&{shown}" if shown[:1].isdigit() else shown, self)
            action.setStatusTip(f"Open and trace the lesson {path.name}")
            action.triggered.connect(
                lambda _checked=False, p=str(path): self.controllers.sessions.open_lesson(p)
            )
            menu.addAction(action)
            actions[title] = action
        return actions

    def set_presenter_layout(self, on: bool, full_screen: bool) -> None:
        """Presenter mode's layout: no menus, toolbar or configuration; the execution beside
        the result and the timing bars; large type; full screen when asked."""
        views = self.views
        full_screen_before = self.isFullScreen()  # (showing the panels again may end it)
        if on:  # before the panels are hidden
            self._before_presenting = (
                self.saveState(),
                self.saveGeometry(),
                self.isMaximized(),
                views.tabs.currentIndex(),
            )
            self._window_rect = self.geometry()  # exactly: restoreGeometry adjusts for frames
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
            # The room view takes three quarters: two 16×16 tiles with their values beside
            # the whole matrices, at 1280×720.
            screen = self.screen().geometry() if full_screen else self.geometry()
            views.presenter_split.setStretchFactor(0, 3)
            views.presenter_split.setStretchFactor(1, 1)
            views.presenter_split.setSizes([3 * screen.width() // 4, screen.width() // 4])
            views.stack.setCurrentWidget(views.presenter_split)
            execution.code.setVisible(False)  # the step's line is shown above the cells
            set_room_view(execution, True)
            result.set_presenting(True)
            self._show_key_strip()
            self.setStyleSheet(presenter_style(screen.width(), screen.height()))
            if full_screen:
                self.showFullScreen()
            execution.setFocus()
        else:
            for index, (view, (_name, title)) in enumerate(zip(presented, PRESENTED, strict=True)):
                views.tabs.insertTab(index, view, title)
            views.stack.setCurrentWidget(views.tabs)
            views.execution_view.code.setVisible(True)
            set_room_view(views.execution_view, False)
            views.result_view.set_presenting(False)
            views.execution_view.set_key_strip("")
            self.setStyleSheet("")
            # A view behind another tab keeps the room view's minimum sizes in its layouts
            # (a hidden widget's changes reach no layout): forgotten, or the window comes
            # back taller than a 1280×720 screen, its status bar below the edge.
            for view in presented:
                for layout in (view.layout(), *view.findChildren(QLayout)):
                    if layout is not None:
                        layout.invalidate()
            self._restore_layout(full_screen_before)

    def _restore_layout(self, full_screen: bool) -> None:
        """Out of presenter mode: the window as it was before a full screen (maximised, or its
        size and place), the panels' widths and the tab the person had."""
        before, self._before_presenting = self._before_presenting, None
        if before is None:
            if full_screen:
                self.showNormal()
            return
        docks, _geometry, maximised, tab = before
        if full_screen and maximised:
            self.showMaximized()
        elif full_screen:
            self.showNormal()
        self.restoreState(docks)
        self.views.tabs.setCurrentIndex(tab)
        # The presenter's larger minimum sizes and a window manager's own settling last until
        # after this returns: the place, size and panels' widths again then, exactly, or
        # the window and its configuration panel lose a little on each round trip.
        rect = self._window_rect

        def settle() -> None:
            if self._before_presenting is not None:  # presenting again meanwhile
                return
            if full_screen and not maximised and not self.isFullScreen():
                self.setGeometry(rect)
            self.restoreState(docks)

        layout = self.layout()
        if layout is not None:
            layout.activate()  # the desk's minimum sizes, not the presenter's
        settle()
        QTimer.singleShot(0, settle)

    def open_start(self) -> None:
        """Open on the last session or the IOU demo, ready to run (see
        :meth:`~explorer.gui.controllers.sessions.SessionController.open_start`)."""
        self.controllers.sessions.open_start(self.restored)

    def _restore(self) -> None:
        self.restored = self.settings.contains("format")
        self.state.notice = settings_store.restore(
            self.settings, self.model, self.state.user_headers
        )
        self.controllers.devices.remember(settings_store.device_name(self.settings))
        self.restored = self.restored and self.state.notice is None
        if self.restored and self.settings.value("kernel_file"):  # a file of the person's
            self.controllers.kernels.watch(self.model.variant)  # saving it re-runs it
        cannot_save = settings_store.unwritable(self.settings)
        if cannot_save:
            self.state.notice = " ".join(filter(None, (self.state.notice, cannot_save)))
        geometry = self.settings.value("geometry")
        if geometry is None or not self.restoreGeometry(geometry):
            self.resize(first_size(self.screen().availableGeometry().size()))
        state = self.settings.value("state")
        if state is not None:
            self.restoreState(state)
        for dock in self.findChildren(QDockWidget):  # no close button: hidden only by presenting
            dock.setVisible(True)
        self.statusBar().showMessage(self.state.notice or "Looking for OpenCL devices …")

    # -- window events -------------------------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        urls = event.mimeData().urls()
        path = urls[0].toLocalFile() if urls else ""
        if path and (
            self.controllers.kernels.accepts(path) or self.controllers.captures.accepts(path)
        ):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        path = event.mimeData().urls()[0].toLocalFile()
        if self.controllers.captures.accepts(path):  # a capture folder
            self.controllers.captures.open_capture(path)
        else:
            self.controllers.kernels.open_dropped(path)

    def closeEvent(self, event: QCloseEvent) -> None:
        if not self.controllers.editing.may_leave():  # unsaved edits: the person stays
            event.ignore()
            return
        if self._before_presenting is not None:  # closed while presenting: the window before
            docks, geometry = self._before_presenting[:2]
        else:
            docks, geometry = self.saveState(), self.saveGeometry()
        settings_store.save(
            self.settings,
            self.model,
            geometry,
            docks,
            self.state.user_headers,
            configuration=self.controllers.captures.label is None,
        )
        self.controllers.hosts.close()  # a host being checked or installed on
        self.views.panel.stop_searching()
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
