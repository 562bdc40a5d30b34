"""Exercises: shipped kernels with a gap or a bug, graded on the learner's device.

The API a front end needs (the app's Exercises menu, ``python -m explorer exercise``):

- :func:`exercises` — every exercise in order; each an :class:`Exercise` with ``name``,
  ``number``, ``title``, ``text``, ``hints`` (to unlock one at a time), ``start_source`` (the
  kernel to begin from), ``solution_source`` (shown only when the learner asks) and the
  figures that grade its cost.
- :func:`exercises_in` — the exercises of another folder, read as a document from outside
  (see :mod:`explorer.exercises.catalog`).
- :func:`find_exercise` — one by name (or number); an unknown name is an
  :class:`ExerciseError` naming the others.
- :func:`grade` — ``grade(exercise, attempt_source, executor, device_key)`` runs, verifies and
  traces the attempt through the executor and returns a frozen :class:`Grade`: ``passed``,
  ``checks`` (each a :class:`Check` with ``name``, ``passed`` and a sentence), ``figures``
  (the measured costs), and, for a failed attempt, ``first_difference``, ``parting`` and
  ``parting_line``: where its accesses part from the solution's, and ``diff``, the whole trace
  diff (its ``first_records`` are the attempt's records an execution view marks).
  ``Grade.text()`` and ``Grade.to_json()`` are the command's two outputs; neither holds the
  solution's text.
  ``Grade.traced`` is the one trace run the grade read (the attempt traced against the
  solution, whose accesses its ``differs`` findings tell without the solution's text): a
  window shows it as it is, with no second trace.
- For a caller that traces the attempt itself: :func:`header_check` and
  :func:`parameters_check`, then :func:`grade_traced` on the run of
  :func:`against_solution`'s request (``keep_trace=True``). Its ``differs`` findings are
  not bugs of the attempt.

Nothing here imports Qt: the window calls :func:`grade` from its worker thread.
"""

from __future__ import annotations

from explorer.exercises.catalog import (
    FIGURES,
    Exercise,
    ExerciseError,
    FigureCheck,
    exercises,
    exercises_dir,
    exercises_in,
    find_exercise,
)
from explorer.exercises.grading import (
    Check,
    Figure,
    Grade,
    against_solution,
    figure_buffers,
    grade,
    grade_traced,
    header_check,
    parameters_check,
    with_parting,
)

__all__ = [
    "FIGURES",
    "Check",
    "Exercise",
    "ExerciseError",
    "Figure",
    "FigureCheck",
    "Grade",
    "against_solution",
    "exercises",
    "exercises_dir",
    "exercises_in",
    "figure_buffers",
    "find_exercise",
    "grade",
    "grade_traced",
    "header_check",
    "parameters_check",
    "with_parting",
]
