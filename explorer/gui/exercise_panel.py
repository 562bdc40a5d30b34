"""The open exercise: its text, the hints unlocked so far (one more with "Hint"), and the
grade of the attempt as last saved, each check with its sentence, and where the attempt
parts from the solution. The solution itself is shown only when asked, after a question.

In presenter mode the window's large type applies here too (a lecturer solving the exercise
live, read from the back row)."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from explorer.exercises import Exercise, Grade
from explorer.gui.source_view import CodeEditor

PASSED_COLOUR = "#1e8449"
FAILED_COLOUR = "#c0392b"


def _label(name: str, wrap: bool = True) -> QLabel:
    label = QLabel()
    label.setObjectName(name)
    label.setWordWrap(wrap)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


class ExercisePanel(QScrollArea):
    """Text, hints and grade of one exercise; asks for a hint or the solution by signal."""

    hint_requested = Signal()
    solution_requested = Signal()
    next_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # wrapped
        self.setMinimumWidth(260)
        body = QWidget()
        layout = QVBoxLayout(body)
        self.title = _label("exercise-title")
        self.text = _label("exercise-text")
        self.hints = _label("exercise-hints")
        self.verdict = _label("exercise-verdict")
        self.checks = _label("exercise-checks")
        self.parting = _label("exercise-parting")
        self.hint_button = QPushButton("Hint")
        self.hint_button.clicked.connect(self.hint_requested)
        self.solution_button = QPushButton("Show solution…")
        self.solution_button.clicked.connect(self.solution_requested)
        self.next_button = QPushButton("Next exercise")
        self.next_button.clicked.connect(self.next_requested)
        for widget in (self.title, self.text, self.hints):
            layout.addWidget(widget)
        # Two rows: the panel stands in a narrow column beside the animation when presented.
        for row in ((self.hint_button, self.solution_button), (self.next_button,)):
            buttons = QHBoxLayout()
            for button in row:
                buttons.addWidget(button)
            buttons.addStretch(1)
            layout.addLayout(buttons)
        for widget in (self.verdict, self.checks, self.parting):
            layout.addWidget(widget)
        layout.addStretch(1)
        self.setWidget(body)
        self.exercise: Exercise | None = None

    def show_exercise(self, exercise: Exercise, total: int, hints: int) -> None:
        """``exercise`` (number of ``total``), its first ``hints`` hints unlocked, no grade
        yet."""
        self.exercise = exercise
        self.title.setText(
            f"<b>Exercise {exercise.number} of {total}: {html.escape(exercise.title)}</b>"
        )
        self.text.setText(exercise.text)
        self.show_hints(hints)
        self.show_message("Edit the kernel and save it (Ctrl+S): each save is graded.")

    def show_hints(self, count: int) -> None:
        exercise = self.exercise
        if exercise is None:
            return
        shown = exercise.hints[:count]
        self.hints.setText(
            "<br>".join(f"<i>Hint {i}:</i> {html.escape(h)}" for i, h in enumerate(shown, 1))
        )
        self.hints.setVisible(bool(shown))
        left = len(exercise.hints) - len(shown)
        self.hint_button.setEnabled(left > 0)
        self.hint_button.setText(
            f"Hint ({len(shown) + 1} of {len(exercise.hints)})" if left else "No more hints"
        )

    def show_message(self, text: str) -> None:
        """A line where the grade goes (grading, or how to be graded); no checks."""
        self.verdict.setText(html.escape(text))
        self.checks.setText("")
        self.parting.setText("")

    def show_grade(self, grade: Grade) -> None:
        """The verdict, each check with its sentence, and where the attempt parts from the
        solution (never the solution's text)."""
        colour = PASSED_COLOUR if grade.passed else FAILED_COLOUR
        words = "✔ Passed" if grade.passed else "✘ Not yet"
        # Larger than the sentences: the verdict is what the back row reads first.
        self.verdict.setText(f'<b style="color:{colour}; font-size:x-large">{words}</b>')
        self.checks.setText(
            "<br>".join(
                f'<span style="color:{PASSED_COLOUR if c.passed else FAILED_COLOUR}">'
                f"{'✔' if c.passed else '✘'}</span> {html.escape(c.sentence)}"
                for c in grade.checks
            )
        )
        self.parting.setText(html.escape(grade.parting))


class SolutionDialog(QDialog):
    """A solution, read-only, in a window of its own."""

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
