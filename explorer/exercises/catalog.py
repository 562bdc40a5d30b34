"""The shipped exercises: one folder each under ``resources/exercises/``, in order.

A folder ``NN-name/`` holds ``exercise.toml`` (title, text, hints, the figures that grade a
cost), ``start.cl`` (the kernel the learner starts from, with a gap or a bug) and
``solution.cl`` (a right answer). Both kernels carry the same catalog header, so each runs,
traces and opens in the app like any kernel file. Adding an exercise is adding a folder.

An exercise folder is read as any document from outside (:mod:`explorer.documents`): the
TOML bounded in size and depth, each field checked with a message naming the file, the field
and what was expected, and its kernels kept inside its folder (a symbolic link out of it,
or a FIFO, a device or a folder where a kernel belongs, is refused).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from explorer.documents import REQUIRED, DocumentError, Fields, inside, read_toml
from explorer.frontend.line_directives import header_lines
from explorer.paths import (
    TEXT_LIMIT,
    UserFileError,
    check_user_file,
    read_user_text,
    resources_dir,
    shown,
)

_FOLDER = re.compile(r"^(?P<number>\d{1,4})-(?P<name>[a-z0-9][a-z0-9-]{0,63})$")
_KEYS = ("title", "text", "hints", "figure", "local_size", "line_to_change")
_FIGURE_KEYS = ("figure", "buffer", "at_most", "at_least", "why")
_TOML_LIMIT = 256 << 10  # an exercise's text and hints are a few kilobytes
_TOML_DEPTH = 4  # [[figure]] tables are the deepest: the file, the list, a figure
_MAX_EXERCISES = 200

# What a figure measures, in the words a grade uses (see ``FigureCheck``).
FIGURES = {
    "loads_per_element": "global loads per element of {buffer} (mean)",
    "sectors_per_request": "32-byte sectors per warp request on {buffer} (worst line)",
    "sectors_over_needed": "32-byte sectors per warp request on {buffer}, over the fewest "
    "its bytes fit in (worst line)",
    "bank_conflict_degree": "bank-conflict degree on {buffer} (worst line)",
    "items_per_request": "busy work-items per warp request on {buffer} (all its accesses)",
}


class ExerciseError(ValueError):
    """An exercise that does not exist, or a shipped one that is malformed."""


@dataclass(frozen=True)
class FigureCheck:
    """A cost the trace measures, with the bound a passing attempt keeps.

    ``figure`` is one of :data:`FIGURES`: ``loads_per_element`` (the trace's mean loads of
    each element of a global input buffer), ``sectors_per_request`` and
    ``bank_conflict_degree`` (the worst line accessing ``buffer``), ``sectors_over_needed``
    (the worst line's sectors per request over the fewest sectors the bytes its work-items
    ask for fit in: 1 for a coalesced access of any width, a float or a float4),
    ``items_per_request`` (accesses over warp requests, over every access to ``buffer``: low
    when a branch leaves most work-items of a warp idle). Exactly one of ``at_most`` and
    ``at_least`` is set."""

    figure: str
    buffer: str
    at_most: float | None = None
    at_least: float | None = None
    why: str = ""  # a sentence a failing attempt reads: why the bound matters

    @property
    def label(self) -> str:
        return FIGURES[self.figure].format(buffer=self.buffer)

    def label_for(self, name: str) -> str:
        """The label, on the attempt's own ``name`` for the buffer."""
        return FIGURES[self.figure].format(buffer=f"{name} (the exercise's {self.buffer})")

    @property
    def bound(self) -> str:
        """``at most 2`` or ``at least 16``."""
        if self.at_most is not None:
            return f"at most {self.at_most:g}"
        return f"at least {self.at_least:g}"

    def holds(self, value: float) -> bool:
        if self.at_most is not None:
            return value <= self.at_most
        assert self.at_least is not None
        return value >= self.at_least


@dataclass(frozen=True)
class Exercise:
    """One exercise. ``name`` is what ``exercise check NAME`` takes; ``number`` its place
    (from 1); ``hints`` unlock one at a time, the first the gentlest. ``local_size_yours``:
    the learner chooses the launch's local size in the header's ``local``; every other
    exercise's header must stay as shipped."""

    number: int
    name: str
    title: str
    text: str
    hints: tuple[str, ...]
    folder: Path
    figures: tuple[FigureCheck, ...] = ()
    local_size_yours: bool = False
    # Text of the first line the learner has to change, where the solution's first change
    # is not it (a comment reworded, a definition it no longer needs); "" otherwise.
    line_to_change: str = ""

    @property
    def start_path(self) -> Path:
        return self.folder / "start.cl"

    @property
    def solution_path(self) -> Path:
        return self.folder / "solution.cl"

    @property
    def start_source(self) -> str:
        """The kernel the learner starts from (copy it to a file of one's own to work)."""
        return _kernel_text(self.start_path)

    @property
    def solution_source(self) -> str:
        """A right answer; whether to show it is the caller's choice."""
        return _kernel_text(self.solution_path)

    @property
    def header_lines(self) -> int:
        """The lines of the starting file's leading ``/*--- ... ---*/`` header (0: none)."""
        return header_lines(self.start_source)

    @property
    def first_line_to_change(self) -> int:
        """The first line (1-based) of the starting file to change, where an editor opens it:
        the first holding ``line_to_change`` where the exercise names one, else the first
        that the solution changes."""
        start, solution = self.start_source.splitlines(), self.solution_source.splitlines()
        if self.line_to_change:
            return next(n for n, text in enumerate(start, 1) if self.line_to_change in text)
        for number, (ours, theirs) in enumerate(zip(start, solution, strict=False), 1):
            if ours != theirs:
                return number
        return min(len(start), len(solution)) + 1

    def to_json(self) -> dict[str, Any]:
        """What ``exercise list --json`` prints of it (no solution)."""
        return {
            "number": self.number,
            "name": self.name,
            "title": self.title,
            "text": self.text,
            "hints": list(self.hints),
            "start": str(self.start_path),
            "local_size_yours": self.local_size_yours,
            "figures": [
                {"figure": f.figure, "buffer": f.buffer, "at_most": f.at_most,
                 "at_least": f.at_least}
                for f in self.figures
            ],
        }  # fmt: skip


def exercises_dir() -> Path:
    """The folder holding one folder per exercise."""
    return resources_dir() / "exercises"


def exercises() -> tuple[Exercise, ...]:
    """Every shipped exercise, in order."""
    return exercises_in(exercises_dir())


def exercises_in(root: str | os.PathLike[str]) -> tuple[Exercise, ...]:
    """The exercises of the folder ``root`` (one folder ``NN-name`` each), in order; a
    folder that is not a whole exercise is an :class:`ExerciseError` naming its file, the
    field and what was expected."""
    return _load(os.path.abspath(root))


def find_exercise(name: str) -> Exercise:
    """The exercise called ``name`` (or numbered so); a name no exercise has is an
    :class:`ExerciseError` that lists the names."""
    for exercise in exercises():
        if name.strip().lower() in (exercise.name, str(exercise.number)):
            return exercise
    names = ", ".join(e.name for e in exercises())
    raise ExerciseError(f"no exercise {shown(name, 60)!r}; the exercises are: {names}")


@lru_cache(maxsize=2)
def _load(root: str) -> tuple[Exercise, ...]:
    found: list[Exercise] = []
    try:
        names = sorted(os.listdir(root))
    except OSError as exc:
        raise ExerciseError(
            f"{shown(root)}: the exercises' folder cannot be read ({exc.strerror})"
        ) from None
    for entry in names:
        match = _FOLDER.match(entry)
        if match is None or not os.path.isdir(os.path.join(root, entry)):
            continue
        if len(found) >= _MAX_EXERCISES:
            raise ExerciseError(f"{shown(root)}: more than {_MAX_EXERCISES} exercises")
        try:
            folder = inside(root, entry, f"{shown(root)}: exercise folder")
        except DocumentError as exc:
            raise ExerciseError(str(exc)) from None
        found.append(_read(folder, int(match["number"]), match["name"]))
    numbers = [e.number for e in found]
    if numbers != list(range(1, len(found) + 1)):
        raise ExerciseError(f"{root}: exercises must be numbered 1, 2, ... without gaps")
    return tuple(found)


def _read(folder: Path, number: int, name: str) -> Exercise:
    where = shown(folder / "exercise.toml")
    try:
        meta = read_toml(
            inside(folder, "exercise.toml", f"{where}"), "exercise file", _TOML_LIMIT, _TOML_DEPTH
        )
        for kernel in ("start.cl", "solution.cl"):
            path = inside(folder, kernel, f"{shown(folder)}: {kernel}")
            check_user_file(path, "exercise kernel", TEXT_LIMIT)
        unknown = [key for key in meta if key not in _KEYS]
        if unknown:
            raise DocumentError(
                f"{where}.{shown(unknown[0], 60)}: not a field of an exercise "
                f"(fields: {', '.join(_KEYS)})"
            )
        fields = Fields(meta, where)
        title = _words(fields.text("title", REQUIRED, limit=200), fields.at("title"))
        text = _words(fields.text("text", REQUIRED, limit=20_000), fields.at("text"))
        hints = fields.texts("hints", REQUIRED, limit=20)
        if not hints:
            raise DocumentError(f"{fields.at('hints')}: expected at least one hint")
        for i, hint in enumerate(hints):
            _words(hint, f"{fields.at('hints')}[{i}]", 4000)
        local_size = fields.text("local_size", "", limit=20)
        if local_size not in ("", "yours"):
            raise DocumentError(
                f'{fields.at("local_size")}: expected "yours" (the learner chooses the local '
                f"size) or no field, found {shown(local_size, 60)!r}"
            )
        figures = tuple(
            _figure(Fields(raw, f"{fields.at('figure')}[{i}]"))
            for i, raw in enumerate(fields.items("figure", [], limit=20))
        )
        line_to_change = fields.text("line_to_change", "", limit=200)
        if line_to_change and not any(
            line_to_change in text for text in _kernel_text(folder / "start.cl").splitlines()
        ):
            raise DocumentError(
                f"{fields.at('line_to_change')}: expected the text of a line of start.cl, "
                f"found {shown(line_to_change, 60)!r} on none"
            )
    except (DocumentError, UserFileError) as exc:
        raise ExerciseError(str(exc)) from None
    return Exercise(
        number=number,
        name=name,
        title=title,
        text=text,
        hints=tuple(" ".join(h.split()) for h in hints),
        folder=folder,
        figures=figures,
        local_size_yours=local_size == "yours",
        line_to_change=line_to_change,
    )


def _words(value: str, where: str, limit: int = 20_000) -> str:
    """``value`` with its white space made single spaces: refused when it is empty."""
    words = " ".join(value.split())
    if not words:
        raise DocumentError(f"{where}: expected some text, found none")
    if len(value) > limit:
        raise DocumentError(f"{where}: expected at most {limit} characters, found {len(value)}")
    return words


def _figure(fields: Fields) -> FigureCheck:
    unknown = [key for key in fields.value if key not in _FIGURE_KEYS]
    if unknown:
        raise DocumentError(
            f"{fields.at(shown(unknown[0], 60))}: not a field of a figure "
            f"(fields: {', '.join(_FIGURE_KEYS)})"
        )
    figure = fields.text("figure", REQUIRED, limit=100)
    if figure not in FIGURES:
        raise DocumentError(
            f"{fields.at('figure')}: expected one of {', '.join(FIGURES)}, "
            f"found {shown(figure, 60)!r}"
        )
    buffer = fields.text("buffer", REQUIRED, limit=100)
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", buffer):
        raise DocumentError(
            f"{fields.at('buffer')}: expected a buffer's name, found {shown(buffer, 60)!r}"
        )
    at_most, at_least = fields.number("at_most"), fields.number("at_least")
    if (at_most is None) == (at_least is None):
        raise DocumentError(f"{fields.where}: expected one of at_most and at_least, not both")
    return FigureCheck(
        figure=figure,
        buffer=buffer,
        at_most=at_most,
        at_least=at_least,
        why=" ".join(fields.text("why", "", limit=2000).split()),
    )


def _kernel_text(path: Path) -> str:
    """An exercise's kernel, read as any file from outside (bounded, a regular file)."""
    try:
        return read_user_text(path, "exercise kernel")
    except UserFileError as exc:
        raise ExerciseError(str(exc)) from None
