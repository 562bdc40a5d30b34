"""The Exercises menu and where an open exercise is shown.

The menu lists the exercises in order, a check mark on each one passed (the progress kept in
the settings), then Next exercise, Hint, Check now and Show solution. At the desk the
exercise's panel is a dock beside the views and the kernel is edited on the source tab; in
presenter mode (a lecturer solving it live) the panel and the editor take the place of the
result and the timing, beside the execution view, in the presenter's large type."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QDockWidget,
    QMainWindow,
    QMenu,
    QSplitter,
)

from explorer.exercises import Exercise, exercises
from explorer.gui import settings as store
from explorer.gui.controllers.exercises import ExerciseController
from explorer.gui.exercise_panel import ExercisePanel
from explorer.gui.state import AppState
from explorer.gui.views import TABS, Views


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


class ExerciseItems:
    """The exercises at the top of the Exercises menu, in order, each checked once passed;
    the menu's commands on the open exercise follow them (declared with the controller)."""

    def __init__(self, window: QMainWindow, controller: ExerciseController) -> None:
        self.controller = controller
        menu = next(m for m in window.findChildren(QMenu) if m.title() == "&Exercises")
        first = menu.actions()[0]  # the commands on the open exercise (Next exercise …)
        self.items: dict[str, QAction] = {}
        for exercise in exercises():
            action = QAction(f"{exercise.number}. {exercise.title}", window)
            action.setObjectName(f"exercise:{exercise.name}")
            action.setCheckable(True)
            action.setStatusTip(exercise.text)
            action.triggered.connect(lambda _=False, e=exercise: self._open(e))
            menu.insertAction(first, action)
            self.items[exercise.name] = action
        menu.insertSeparator(first)
        controller.progress_changed.connect(self.show_progress)
        self.show_progress()

    def _open(self, exercise: Exercise) -> None:
        self.controller.open(exercise)
        self.show_progress()  # a click toggles the check mark: it shows the progress again

    def show_progress(self) -> None:
        passed = store.passed_exercises(self.controller.settings)
        for name, action in self.items.items():
            action.setChecked(name in passed)


@dataclass(frozen=True)
class Exercises:
    """The window's exercise pieces besides the controller."""

    room: ExerciseRoom
    items: ExerciseItems


def install_exercises(
    window: QMainWindow, views: Views, state: AppState, controller: ExerciseController
) -> Exercises:
    """The exercises in the Exercises menu, and the panel placed as the mode asks."""
    panel = views.exercise_panel
    room = ExerciseRoom(window, views, panel)
    items = ExerciseItems(window, controller)
    panel.hint_requested.connect(controller.hint)
    panel.solution_requested.connect(controller.show_solution)
    panel.next_requested.connect(controller.open_next)

    def place(*_: object) -> None:
        room.place(state.presenting, state.exercise is not None)

    state.events.presenting.connect(place)
    state.events.exercise.connect(place)
    return Exercises(room, items)
