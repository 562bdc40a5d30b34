"""The Exercises menu and where an open exercise is shown.

The menu lists the exercises in order, a check mark on each one passed (the progress kept in
the settings), then Next exercise, Hint, Check now and Show solution. At the desk the
exercise's panel is a dock beside the views and the kernel is edited on the source tab; in
presenter mode (a lecturer solving it live) the panel and the editor take the place of the
result and the timing, beside the execution view, in the presenter's large type."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDockWidget,
    QMainWindow,
    QMenu,
    QMessageBox,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from explorer.exercises import Exercise, exercises
from explorer.gui import settings as store
from explorer.gui.controllers.exercises import ExerciseController
from explorer.gui.exercise_panel import ExercisePanel
from explorer.gui.model import ConfigModel
from explorer.gui.source_view import CodeEditor
from explorer.gui.state import AppState
from explorer.gui.views import TABS, Views
from explorer.gui.wiring import Controllers
from explorer.gui.worker import Worker

NEXT_KEYS = "Ctrl+Alt+N"
HINT_KEYS = "Ctrl+Alt+H"
CHECK_KEYS = "Ctrl+Alt+G"


class ExerciseRoom:
    """Puts the panel in its dock at the desk, or beside the execution view with the editor
    while presenting; shown only while an exercise is open."""

    def __init__(self, window: QMainWindow, views: Views, panel: ExercisePanel) -> None:
        self.views = views
        self.panel = panel
        self.dock = QDockWidget("Exercise", window)
        self.dock.setObjectName("exercise")
        self.dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable)
        self.dock.setWidget(panel)
        window.addDockWidget(Qt.DockWidgetArea.RightDockWidgetArea, self.dock)
        self.dock.hide()
        self.column: QSplitter | None = None  # the panel over the editor, while presenting

    def place(self, presenting: bool, open_: bool) -> None:
        if presenting and open_ and self.column is None:
            self._present()
        elif self.column is not None and not (presenting and open_):
            self._back()
        self.dock.setVisible(open_ and not presenting)

    def _present(self) -> None:
        views = self.views
        views.tabs.removeTab(views.tabs.indexOf(views.source_view))
        column = QSplitter(Qt.Orientation.Vertical)
        column.setObjectName("exercise-column")
        column.addWidget(self.panel)
        column.addWidget(views.source_view)
        column.setSizes([300, 400])
        views.presenter_side.hide()
        views.presenter_split.addWidget(column)
        half = max(views.presenter_split.width(), 2) // 2
        views.presenter_split.setSizes([half, 0, half])
        self.panel.show()
        views.source_view.show()
        self.column = column
        views.source_view.editor.setFocus()

    def _back(self) -> None:
        views = self.views
        title = dict(TABS)["source"]
        views.tabs.insertTab(views.tabs.indexOf(views.findings_view), views.source_view, title)
        self.dock.setWidget(self.panel)
        views.presenter_side.show()
        if self.column is not None:
            self.column.setParent(None)
            self.column.deleteLater()
        self.column = None


class ExercisesMenu:
    """The menu: every exercise (checked once passed), then the commands on the open one."""

    def __init__(self, window: QMainWindow, controller: ExerciseController) -> None:
        self.window = window
        self.controller = controller
        self.menu = QMenu("&Exercises", window)
        help_menu = window.menuBar().actions()[-1]
        window.menuBar().insertMenu(help_menu, self.menu)
        self.items: dict[str, QAction] = {}
        for exercise in exercises():
            action = QAction(f"{exercise.number}. {exercise.title}", window)
            action.setCheckable(True)
            action.setStatusTip(exercise.text)
            action.triggered.connect(lambda _=False, e=exercise: self._open(e))
            self.menu.addAction(action)
            self.items[exercise.name] = action
        self.menu.addSeparator()
        self.next = self._command("&Next exercise", NEXT_KEYS, controller.open_next)
        self.hint = self._command("&Hint", HINT_KEYS, controller.hint)
        self.check = self._command("&Check now", CHECK_KEYS, controller.check)
        self.solution = self._command("Show &solution…", "", self.show_solution)
        controller.progress_changed.connect(self.show_progress)
        controller.opened.connect(self._opened)
        self.show_progress()
        self._opened(None)

    def _command(self, text: str, keys: str, run: object) -> QAction:
        action = QAction(text, self.window)
        if keys:
            action.setShortcut(QKeySequence(keys))
        action.triggered.connect(lambda _=False: run())  # type: ignore[operator]
        self.window.addAction(action)  # its key works while presenting hides the menus
        self.menu.addAction(action)
        return action

    def _open(self, exercise: Exercise) -> None:
        self.controller.open(exercise)
        self.show_progress()  # a click toggles the check mark: it shows the progress again

    def _opened(self, exercise: Exercise | None) -> None:
        for action in (self.hint, self.check, self.solution):
            action.setEnabled(exercise is not None)

    def show_progress(self) -> None:
        passed = store.passed_exercises(self.controller.settings)
        for name, action in self.items.items():
            action.setChecked(name in passed)

    def show_solution(self) -> None:
        """The open exercise's solution, after a question, in a read-only window of its own
        (the attempt is left as it is)."""
        exercise = self.controller.exercise
        if exercise is None:
            return
        answer = QMessageBox.question(
            self.window,
            "Show the solution?",
            f"Show a solution of exercise {exercise.number}? Trying the hints first teaches more.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        if answer != QMessageBox.StandardButton.Yes:
            return
        SolutionDialog(exercise, self.window).open()


class SolutionDialog(QDialog):
    def __init__(self, exercise: Exercise, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Exercise {exercise.number}: a solution")
        layout = QVBoxLayout(self)
        self.code = CodeEditor()
        self.code.load(exercise.solution_source)
        layout.addWidget(self.code)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)
        layout.addWidget(close)
        self.resize(760, 600)


@dataclass(frozen=True)
class Exercises:
    """The window's exercise pieces."""

    controller: ExerciseController
    panel: ExercisePanel
    room: ExerciseRoom
    menu: ExercisesMenu


def install_exercises(
    window: QMainWindow,
    views: Views,
    model: ConfigModel,
    state: AppState,
    worker: Worker,
    settings: QSettings,
    controllers: Controllers,
) -> Exercises:
    """The Exercises menu, its panel and its controller, in ``window``."""
    panel = ExercisePanel()
    controller = ExerciseController(
        model,
        state,
        worker,
        settings,
        files=controllers.kernels,
        comparer=controllers.trace_diff,
        panel=panel,
        source=views.source_view,
        status=views,
        pages=views,
    )
    room = ExerciseRoom(window, views, panel)
    menu = ExercisesMenu(window, controller)
    panel.hint_requested.connect(controller.hint)
    panel.solution_requested.connect(menu.show_solution)
    panel.next_requested.connect(controller.open_next)

    def place(*_: object) -> None:
        room.place(state.presenting, controller.exercise is not None)

    state.events.presenting.connect(place)
    controller.opened.connect(place)
    return Exercises(controller, panel, room, menu)
