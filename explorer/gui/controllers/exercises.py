"""Doing an exercise in the app: open one (its starting kernel copied once to the person's
own attempt file, so reopening resumes it and the shipped file is never changed), unlock its
hints one at a time, and have every save graded.

A save, in the app's editor or in the person's own (the file is watched), reloads the
attempt by the one reload path (:mod:`~explorer.gui.controllers.kernel_files`: rebuilt and
re-run); once that work is done, the attempt is graded on the worker's thread by
:func:`explorer.exercises.grade` (the status bar's progress and Cancel, as any work), the
grade shown check by check. The grade traced the attempt once, against the solution: a failed
attempt's trace run is shown as it is through the trace diff's controller, which marks the
first differing accesses in the execution view and lists them as findings at their lines
(telling what the solution does there, never its source). Passing is remembered in the
settings; an attempt opened again (by the menu, by hand, or as the last session at start)
opens its exercise."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Protocol

from PySide6.QtCore import QObject, QSettings, QTimer, Signal, SignalInstance
from PySide6.QtWidgets import QMessageBox, QWidget

from explorer.engine.record.trace_against import Against
from explorer.engine.record.trace_launch import TracedRun
from explorer.engine.remote.router import HostRouter
from explorer.exercises import Exercise, Grade, exercises, grade
from explorer.file_writes import WriteFailed, replace_text
from explorer.gui import settings as store
from explorer.gui.actions import Action, Actions, AppContext
from explorer.gui.controllers.roles import Pages, SourceMarks, StatusLine, Worker
from explorer.gui.exercise_panel import SolutionDialog
from explorer.gui.model import ConfigModel
from explorer.gui.state import AppState

MARK = "#fadbd8"  # the line where the attempt parts from the solution


class AttemptSource(SourceMarks, Protocol):
    """The source view: marks, a line brought to the top, whether it holds unsaved edits."""

    def reveal(self, line: int) -> None: ...

    def fold_header(self, lines: int) -> None: ...  # hidden from view, kept in the file

    def modified(self) -> bool: ...  # edits not saved yet


class Opener(Protocol):
    def open_kernel(self, path: str) -> bool: ...


class Comparer(Protocol):
    """The trace diff's controller."""

    @property
    def compared(self) -> SignalInstance: ...  # (Against), once the trace is on screen

    def show_compared(self, traced: TracedRun) -> None: ...


class Shower(Protocol):
    """The exercise's panel."""

    def show_exercise(self, exercise: Exercise, total: int, hints: int) -> None: ...

    def show_hints(self, count: int) -> None: ...

    def show_message(self, text: str) -> None: ...

    def show_grade(self, grade: Grade) -> None: ...


class ExerciseController(QObject):
    """The open exercise, its hints, and the grading of each saved attempt."""

    opened = Signal(object)  # the exercise now open, or None
    graded = Signal(object)  # the Grade of the attempt as last saved
    progress_changed = Signal()  # an exercise passed for the first time
    compared = Signal()  # a failed attempt's trace against the solution is on screen

    def __init__(
        self,
        model: ConfigModel,
        state: AppState,
        worker: Worker,
        settings: QSettings,
        files: Opener,
        comparer: Comparer,
        panel: Shower,
        source: AttemptSource,
        status: StatusLine,
        pages: Pages,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.parent_widget = parent
        self.solution: SolutionDialog | None = None  # the solution's window, once asked
        self.model, self.state, self.worker = model, state, worker
        self.settings, self.files, self.comparer = settings, files, comparer
        self.panel, self.source, self.status, self.pages = panel, source, status, pages
        self.exercise: Exercise | None = None
        self.attempt: str | None = None  # the attempt's file
        self._reloads = state.reloads
        self._due = False  # a save waits for the work it started before it is graded
        self._generation = -1
        self.last_grade: Grade | None = None
        model.variant_changed.connect(self._variant_changed)
        worker.idle.connect(self._grade_when_idle)
        worker.call_finished.connect(self._graded)
        self._comparing = False
        self._opening = False  # opening an attempt (its own kernel change is not a resume)
        comparer.compared.connect(self._compared)

    # -- opening ---------------------------------------------------------------------------
    def attempt_path(self, exercise: Exercise) -> Path:
        folder = Path(store.attempts_folder(self.settings))
        return folder / f"{exercise.number:02d}-{exercise.name}.cl"

    def open(self, exercise: Exercise) -> bool:
        """Open ``exercise`` on the person's attempt (the starting kernel, the first time)."""
        path = self.attempt_path(exercise)
        if not path.exists():
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                replace_text(str(path), exercise.start_source)
            except (OSError, WriteFailed) as exc:
                self.status.say(f"Cannot start exercise {exercise.number}: {exc}")
                return False
        self._opening = True
        try:
            opened = self.files.open_kernel(str(path))
        finally:
            self._opening = False
        if not opened or self.model.variant.path != str(path):
            return False  # not opened, or the person stayed with unsaved edits
        self.exercise, self.attempt = exercise, str(path)
        self.state.exercise = exercise.name
        self.last_grade = None
        self.panel.show_exercise(
            exercise, len(exercises()), store.hints_shown(self.settings, exercise.name)
        )
        self.pages.show_page("source")
        first = exercise.first_line_to_change
        # The header folded away, unless the line to change is in it (the local size)
        self.source.fold_header(exercise.header_lines if first > exercise.header_lines else 0)
        self.source.reveal(first)
        self.status.say(f"Exercise {exercise.number}: {exercise.title}. Ctrl+S grades it.")
        self.opened.emit(exercise)
        return True

    def open_next(self) -> bool:
        """The exercise after the open one (the first not passed, when none is open)."""
        every = exercises()
        if self.exercise is not None:
            later = [e for e in every if e.number > self.exercise.number]
        else:
            passed = store.passed_exercises(self.settings)
            later = [e for e in every if e.name not in passed]
        if not later:
            self.status.say("No exercise after this one: every exercise is done.")
            return False
        return self.open(later[0])

    def _variant_changed(self) -> None:
        if self.attempt is None:
            self._resume()
            return
        if self.model.variant.path != self.attempt:
            self.source.fold_header(0)
            self.exercise = self.attempt = None
            self.state.exercise = None
            self.opened.emit(None)
            return
        QTimer.singleShot(0, self._after_reload)  # once the reload has counted itself

    def _after_reload(self) -> None:
        if self.attempt is None or self.state.reloads == self._reloads:
            return
        self._reloads = self.state.reloads  # the attempt was saved: grade it
        self._due = True
        self.panel.show_message("Saved: building, running and grading …")
        self._grade_when_idle()

    def _resume(self) -> None:
        """The kernel now current is an exercise's attempt (the last session's, restored at
        start, or the file opened by hand): that exercise is open."""
        if self._opening:
            return
        path = self.model.variant.path
        found = [e for e in exercises() if str(self.attempt_path(e)) == path]
        if found:
            self.open(found[0])

    # -- hints -----------------------------------------------------------------------------
    def hint(self) -> None:
        """One more hint of the open exercise."""
        exercise = self.exercise
        if exercise is None:
            return
        count = min(len(exercise.hints), store.hints_shown(self.settings, exercise.name) + 1)
        store.set_hints_shown(self.settings, exercise.name, count)
        self.panel.show_hints(count)

    def show_solution(self) -> None:
        """The open exercise's solution, after a question, in a read-only window of its own
        (the attempt is left as it is)."""
        exercise = self.exercise
        if exercise is None:
            return
        answer = QMessageBox.question(
            self.parent_widget,
            "Show the solution?",
            f"Show a solution of exercise {exercise.number}? Trying the hints first teaches more.",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            QMessageBox.StandardButton.No,
        )
        if answer == QMessageBox.StandardButton.Yes:
            self.solution = SolutionDialog(exercise, self.parent_widget)
            self.solution.open()

    # -- grading ---------------------------------------------------------------------------
    def check(self) -> None:
        """Grade the attempt as saved now; with edits not saved yet, say to save them (a
        grade of the file without them would mislead)."""
        if self.exercise is None:
            return
        if self.source.modified():
            self.panel.show_message("Your edits are not saved yet: Ctrl+S saves and grades them.")
            return
        self._due = True
        self._grade_when_idle()

    def _grade_when_idle(self) -> None:
        exercise, path = self.exercise, self.attempt
        if not self._due or exercise is None or path is None or self.worker.busy:
            return
        self._due = False
        source = self.model.variant.source
        work = functools.partial(
            _grade, exercise, source, device_key=self.model.device_key, path=path
        )
        self._generation = self.worker.call(work, f"grading exercise {exercise.number}")

    def cancelled(self) -> None:
        """The person pressed Cancel: the save waiting to be graded, or being graded, is not."""
        saved = self.state.reloads != self._reloads  # a save not yet taken for grading
        if self.exercise is None or not (saved or self._due or self._generation >= 0):
            return
        self._due, self._generation, self._reloads = False, -1, self.state.reloads
        self.panel.show_message("Grading cancelled: save again (Ctrl+S) to grade the attempt.")

    def _graded(self, generation: int, outcome: object) -> None:
        if generation != self._generation or self.exercise is None:
            return
        self._generation = -1
        if not isinstance(outcome, Grade):
            self.panel.show_message(f"Could not grade the attempt: {outcome}")
            return
        self.last_grade = outcome
        self.panel.show_grade(outcome)
        self.graded.emit(outcome)
        exercise = self.exercise
        if outcome.passed:
            self.source.mark_lines([])
            self.status.say(f"Exercise {exercise.number} passed")
            if exercise.name not in store.passed_exercises(self.settings):
                store.mark_passed(self.settings, exercise.name)
                self.progress_changed.emit()
            return
        self.status.say(f"Exercise {exercise.number}: not yet")
        if outcome.first_difference is not None and outcome.traced is not None:
            self._comparing = True
            self.comparer.show_compared(outcome.traced)  # the grade's own trace, as it is
        if outcome.parting_line:
            self.source.mark_lines([outcome.parting_line], MARK)

    def _compared(self, against: Against) -> None:
        if not self._comparing:
            return
        self._comparing = False
        self.compared.emit()


def _grade(
    exercise: Exercise, source: str, executors: HostRouter, device_key: str | None, path: str
) -> Grade:
    """The grade, on the machine whose device is chosen (this one, or a host's)."""
    executor = executors.executor_for(device_key)
    return grade(exercise, source, executor, device_key, path=path)


def _open(app: AppContext) -> bool:
    return app.state.exercise is not None


ACTIONS = Actions(
    ExerciseController,
    Action(
        "next_exercise",
        "&Next exercise",
        "E&xercises",
        ExerciseController.open_next,
        ("Ctrl+Alt+N",),
        "Open the exercise after this one (the first not passed yet, when none is open)",
    ),
    Action(
        "exercise_hint",
        "&Hint",
        "E&xercises",
        ExerciseController.hint,
        ("Ctrl+Alt+H",),
        "Unlock the open exercise's next hint",
        enabled_when=_open,
    ),
    Action(
        "check_exercise",
        "&Check now",
        "E&xercises",
        ExerciseController.check,
        ("Ctrl+Alt+G",),
        "Grade the attempt as saved now (each save is graded by itself)",
        enabled_when=_open,
    ),
    Action(
        "show_solution",
        "Show &solution…",
        "E&xercises",
        ExerciseController.show_solution,
        (),
        "Show a solution of the open exercise, after a question",
        enabled_when=_open,
    ),
)
