"""The Exercises menu and where an open exercise is shown.

The menu lists the exercises in order, a check mark on each one passed (the progress kept in
the settings), then Next exercise, Hint, Check now and Show solution. At the desk the
exercise's panel is a tab beside the configuration and the kernel is edited on the source tab; in
presenter mode (a lecturer solving it live) the execution view and the editor share the left
on two tabs, the editor in front until a graded attempt's differing accesses are to be seen,
and the panel stands beside them in place of the result and the timing, in the presenter's
type."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QDockWidget,
    QMainWindow,
    QMenu,
    QTabWidget,
)

from explorer.exercises import Exercise, exercises
from explorer.gui import settings as store
from explorer.gui.controllers.exercises import ExerciseController
from explorer.gui.exercise_panel import ExercisePanel
from explorer.gui.state import AppState
from explorer.gui.tiling_view import fitted_words
from explorer.gui.views import TABS, Views

STATUS_MARGINS = 18  # the status bar writes its message inside these (Qt's, left and right)
PANEL_WIDTH = 340  # the exercise's text and grade, wrapped, beside the animation (at least)


class ExerciseRoom:
    """Puts the panel in its dock (a tab beside the configuration) at the desk; while
    presenting, the execution view and the editor on two tabs (each needs the screen's
    height at 1280×720) with the panel beside them, in place of the result and the timing.
    Shown only while an exercise is open."""

    def __init__(self, window: QMainWindow, views: Views, panel: ExercisePanel) -> None:
        self.window = window
        self.views = views
        self.panel = panel
        self.dock = QDockWidget("Exercise", window)
        self.dock.setObjectName("exercise")
        self.dock.setFeatures(QDockWidget.DockWidgetFeature.DockWidgetMovable)
        self.dock.setWidget(panel)
        # A tab beside the configuration: at 1280 pixels the views leave no room for a
        # third column.
        window.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.dock)
        configuration = window.findChild(QDockWidget, "configuration")
        if isinstance(configuration, QDockWidget):
            window.tabifyDockWidget(configuration, self.dock)
        self.dock.hide()
        self.left: QTabWidget | None = None  # the animation and the editor, while presenting

    def place(self, presenting: bool, open_: bool) -> None:
        if presenting and open_ and self.left is None:
            self._present()
        elif self.left is not None and not (presenting and open_):
            self._back()
        docked = open_ and not presenting
        if docked and not self.dock.isVisible():
            self.dock.show()
            self.dock.raise_()  # the exercise's tab in front of the configuration's
        self.dock.setVisible(docked)

    def _present(self) -> None:
        views = self.views
        split = views.presenter_split
        views.tabs.removeTab(views.tabs.indexOf(views.source_view))
        left = QTabWidget()
        left.setObjectName("exercise-left")
        left.setDocumentMode(True)
        split.insertWidget(0, left)
        left.addTab(views.execution_view, "Execution")
        left.addTab(views.source_view, "Kernel source")
        left.setCurrentWidget(views.source_view)
        views.presenter_side.hide()
        split.addWidget(self.panel)
        # A quarter of the screen (340 pixels at least); when the window grows to full
        # screen, the views on the left take what it gains.
        panel = max(PANEL_WIDTH, split.screen().geometry().width() // 4)
        split.setStretchFactor(split.indexOf(left), 1)
        split.setStretchFactor(split.indexOf(self.panel), 0)
        width = max(split.width(), panel + 2)
        split.setSizes([width - panel, 0, panel])
        views.source_view.set_compact(True)
        self.panel.show()
        self.left = left
        views.source_view.editor.setFocus()  # the editor in front takes what is typed

    def show_execution(self, *_: object) -> None:
        """The animation in front (a graded attempt's differing accesses marked there)."""
        if self.left is not None:
            self.left.setCurrentWidget(self.views.execution_view)

    def show_source(self, *_: object) -> None:
        if self.left is not None:
            self.left.setCurrentWidget(self.views.source_view)

    def _back(self) -> None:
        views = self.views
        left, self.left = self.left, None
        if left is not None and left.indexOf(views.execution_view) >= 0:
            views.presenter_split.insertWidget(0, views.execution_view)  # still presenting
            views.execution_view.show()
        title = dict(TABS)["source"]
        views.tabs.insertTab(views.tabs.indexOf(views.findings_view), views.source_view, title)
        views.source_view.set_compact(False)
        self.dock.setWidget(self.panel)
        views.presenter_side.show()
        if left is not None:
            left.setParent(None)
            left.deleteLater()


class ExerciseItems:
    """The exercises at the top of the Exercises menu, in order, each checked once passed;
    the menu's commands on the open exercise follow them (declared with the controller)."""

    def __init__(self, window: QMainWindow, controller: ExerciseController) -> None:
        self.controller = controller
        menu = next(m for m in window.findChildren(QMenu) if m.title() == "E&xercises")
        first = menu.actions()[0]  # the commands on the open exercise (Next exercise …)
        self.items: dict[str, QAction] = {}
        for exercise in exercises():
            action = QAction(f"{exercise.number}. {exercise.title}", window)
            action.setObjectName(f"exercise:{exercise.name}")
            action.setCheckable(True)
            action.setData(exercise.text)  # its status tip: as much of this as fits
            action.triggered.connect(lambda _=False, e=exercise: self._open(e))
            menu.insertAction(first, action)
            self.items[exercise.name] = action
        menu.insertSeparator(first)
        self.status_bar = window.statusBar()
        menu.aboutToShow.connect(self.fit_tips)
        controller.progress_changed.connect(self.show_progress)
        self.show_progress()
        self.fit_tips()

    def fit_tips(self) -> None:
        """Each item's status tip: the exercise's first sentences, as many as the status bar
        shows whole at its width now (a whole text runs to thousands of pixels, cut at the
        window's edge); the open exercise's panel says the rest."""
        metrics = self.status_bar.fontMetrics()
        width = self.status_bar.width() - STATUS_MARGINS
        for action in self.items.values():
            tip = first_sentences(
                str(action.data()), lambda t: metrics.horizontalAdvance(t) <= width
            )
            action.setStatusTip(tip)

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
    controller.compared.connect(room.show_execution)
    controller.opened.connect(room.show_source)
    return Exercises(room, items)


def first_sentences(text: str, fits: Callable[[str], bool]) -> str:
    """The text's first sentences, as many as fit whole; where not even the first fits,
    its first words with "…" (never cut inside a word)."""
    sentences = re.split(r"(?<=[.:!?])\s+(?=[A-Z0-9])", text.strip())
    kept = ""
    for sentence in sentences:
        longer = f"{kept} {sentence}" if kept else sentence
        if not fits(longer):
            break
        kept = longer
    return kept or fitted_words(sentences[0], fits)
