"""The shipped exercises: one folder each under ``resources/exercises/``, in order.

A folder ``NN-name/`` holds ``exercise.toml`` (title, text, hints, the figures that grade a
cost), ``start.cl`` (the kernel the learner starts from, with a gap or a bug) and
``solution.cl`` (a right answer). Both kernels carry the same catalog header, so each runs,
traces and opens in the app like any kernel file. Adding an exercise is adding a folder.
"""

from __future__ import annotations

import importlib
import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from explorer.paths import resources_dir

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the same parser, published as tomli
    tomllib: Any = importlib.import_module("tomli")

_FOLDER = re.compile(r"^(?P<number>\d+)-(?P<name>[a-z0-9][a-z0-9-]*)$")

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

    @property
    def start_path(self) -> Path:
        return self.folder / "start.cl"

    @property
    def solution_path(self) -> Path:
        return self.folder / "solution.cl"

    @property
    def start_source(self) -> str:
        """The kernel the learner starts from (copy it to a file of one's own to work)."""
        return self.start_path.read_text(encoding="utf-8")

    @property
    def solution_source(self) -> str:
        """A right answer; whether to show it is the caller's choice."""
        return self.solution_path.read_text(encoding="utf-8")

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
    return _load(str(exercises_dir()))


def find_exercise(name: str) -> Exercise:
    """The exercise called ``name`` (or numbered so); a name no exercise has is an
    :class:`ExerciseError` that lists the names."""
    for exercise in exercises():
        if name.strip().lower() in (exercise.name, str(exercise.number)):
            return exercise
    names = ", ".join(e.name for e in exercises())
    raise ExerciseError(f"no exercise {name!r}; the exercises are: {names}")


@lru_cache(maxsize=2)
def _load(root: str) -> tuple[Exercise, ...]:
    found = []
    for folder in sorted(Path(root).iterdir()):
        match = _FOLDER.match(folder.name)
        if match is None or not folder.is_dir():
            continue
        found.append(_read(folder, int(match["number"]), match["name"]))
    numbers = [e.number for e in found]
    if numbers != list(range(1, len(found) + 1)):
        raise ExerciseError(f"{root}: exercises must be numbered 1, 2, ... without gaps")
    return tuple(found)


def _read(folder: Path, number: int, name: str) -> Exercise:
    where = folder / "exercise.toml"
    try:
        meta = tomllib.loads(where.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ExerciseError(f"{where}: {exc}") from None
    for kernel in ("start.cl", "solution.cl"):
        if not (folder / kernel).is_file():
            raise ExerciseError(f"{folder}: {kernel} is missing")
    hints = meta.get("hints", [])
    if not meta.get("title") or not meta.get("text") or not hints:
        raise ExerciseError(f"{where}: needs a title, a text and at least one hint")
    return Exercise(
        number=number,
        name=name,
        title=str(meta["title"]),
        text=" ".join(str(meta["text"]).split()),
        hints=tuple(" ".join(str(h).split()) for h in hints),
        folder=folder,
        figures=tuple(_figure(raw, where) for raw in meta.get("figure", [])),
        local_size_yours=meta.get("local_size", "") == "yours",
    )


def _figure(raw: dict[str, Any], where: Path) -> FigureCheck:
    figure = raw.get("figure", "")
    if figure not in FIGURES:
        raise ExerciseError(f"{where}: figure {figure!r} is not one of {', '.join(FIGURES)}")
    bounds = [raw.get("at_most"), raw.get("at_least")]
    if sum(b is not None for b in bounds) != 1 or not raw.get("buffer"):
        raise ExerciseError(f"{where}: a figure needs a buffer and one of at_most, at_least")
    return FigureCheck(
        figure=figure,
        buffer=str(raw["buffer"]),
        at_most=None if bounds[0] is None else float(bounds[0]),
        at_least=None if bounds[1] is None else float(bounds[1]),
        why=" ".join(str(raw.get("why", "")).split()),
    )
