"""The edits of one rewrite: stretches of the source replaced by the text that records them.

Rewrites nest: an edit's text is made when the whole is rendered, from its own stretch with
the edits inside it applied, so an access inside the index of another is wrapped first.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class Edit:
    """A stretch [start, end) of the text to replace; `emit` renders it (zero width: insert)."""

    start: int
    end: int
    emit: Callable[[], str]
    outer: bool = False  # rendered around the other edits of the same stretch


class Edits:
    """The edits of one text, rendered outermost first."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.edits: list[Edit] = []
        self._starts: list[int] = []
        self._order: dict[int, int] = {}  # id of an edit -> its place in the sorted edits

    def add(self, start: int, end: int, emit: Callable[[Edit], str], outer: bool = False) -> None:
        """Replace [start, end) by what ``emit`` makes of the edit when rendered; with
        ``outer``, around every edit of the same stretch that is not ``outer`` (otherwise the
        edit added first goes around)."""
        edit = Edit(start, end, lambda: "", outer)
        edit.emit = lambda: emit(edit)
        self.edits.append(edit)

    def insert(self, start: int, end: int, text: str) -> None:
        """Replace [start, end) (usually empty) by fixed text."""
        self.edits.append(Edit(start, end, lambda: text))

    def render(self, start: int, end: int, skip: Edit | None = None) -> str:
        """The text of [start, end) with every edit inside it applied (outermost first).
        With ``skip``, an edit being rendered: it, and the edits of the same stretch that go
        around it (they come before it in order), are left out."""
        out: list[str] = []
        pos = start
        i = bisect.bisect_left(self._starts, start)
        if skip is not None:
            i = max(i, self._order[id(skip)] + 1)
        while i < len(self.edits) and self.edits[i].start < end:
            edit = self.edits[i]
            i += 1
            if edit.start < pos or edit.end > end:
                continue
            out.append(self.text[pos : edit.start])
            out.append(edit.emit())
            pos = edit.end
        out.append(self.text[pos:end])
        return "".join(out)

    def inner(self, edit: Edit) -> str:
        """The edit's own stretch with the edits nested in it applied."""
        return self.render(edit.start, edit.end, skip=edit)

    def apply(self) -> str:
        """The whole text with every edit applied."""
        # Outermost first at each offset; insertions at an offset go before what starts there.
        self.edits.sort(key=lambda e: (e.start, e.end > e.start, -(e.end - e.start), not e.outer))
        self._starts = [e.start for e in self.edits]
        self._order = {id(e): i for i, e in enumerate(self.edits)}
        return self.render(0, len(self.text))
