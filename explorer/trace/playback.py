"""Stepping through a trace: the model behind the animation (numpy only, no Qt).

It has three parts, each in its own module: the index of the trace (:mod:`trace_index`: its
records as columns, the traced groups, loads per element; :mod:`group_steps`: one group's
records cut into steps, as :mod:`steps` cuts them), the cursor (:mod:`cursor`: the selected
group, the step shown, the work-items picked) and the values the cells hold
(:mod:`cell_values`). Everything a view shows for a step is a selection of the trace's own
records, never re-derived.
"""

from __future__ import annotations

import numpy as np

from explorer.trace.anatomy import AccessExplanation, TraceAnatomy
from explorer.trace.cell_values import CellValues
from explorer.trace.cursor import Cursor
from explorer.trace.grids import Grid
from explorer.trace.recorded import Trace
from explorer.trace.steps import Step
from explorer.trace.trace_index import TraceIndex


class Playback:
    """One trace's animation: its index, the cursor over it and the values its cells hold.

    ``by_iteration`` splits a line executed several times in a phase into one step per pass.
    ``arrays`` (role → array, the run's inputs and output) give the values drawn in the cells
    where the trace recorded none (``Trace.values`` is optional).
    """

    def __init__(
        self,
        trace: Trace,
        grids: list[Grid],
        by_iteration: bool = True,
        arrays: dict[str, np.ndarray] | None = None,
    ) -> None:
        self.index = TraceIndex(trace, grids)
        self.cursor = Cursor(self.index, by_iteration)
        self.values = CellValues(self.index, arrays)
        self.anatomy: TraceAnatomy | None = None
        self._explained: dict[int, AccessExplanation | None] = {}

    # What the window asks of the animation as a whole.
    @property
    def trace(self) -> Trace:
        return self.index.trace

    @property
    def grids(self) -> list[Grid]:
        return self.index.grids

    @property
    def traced_groups(self) -> set[int]:
        return self.index.traced_groups

    @property
    def group(self) -> tuple[int, int, int] | None:
        return self.cursor.group

    @property
    def steps(self) -> list[Step]:
        return self.cursor.steps

    @property
    def phases(self) -> int:
        return self.cursor.phases

    def select_group(self, group: tuple[int, int, int]) -> bool:
        """Select a group, at its first step; False when it was not traced."""
        return self.cursor.select_group(group)

    def first_step_of(self, phase: int, line: int | None = None) -> int | None:
        return self.cursor.first_step_of(phase, line)

    def set_by_iteration(self, on: bool) -> None:
        self.cursor.set_by_iteration(on)

    def set_arrays(self, arrays: dict[str, np.ndarray]) -> None:
        self.values.set_arrays(arrays)

    def set_anatomy(self, anatomy: TraceAnatomy | None) -> None:
        """The index anatomy of the trace's accesses (``explorer.trace.anatomy``)."""
        self.anatomy = anatomy
        self._explained = {}

    def explain(self, record: int) -> AccessExplanation | None:
        """The index anatomy of the access a record made (None without one)."""
        if self.anatomy is None:
            return None
        record = int(record)
        if record not in self._explained:
            self._explained[record] = self.anatomy.explain(self.trace, record)
        return self._explained[record]

    def set_differing(self, records: np.ndarray) -> None:
        """The records where a work-item first parts from a reference kernel (a trace diff's
        ``first_records``): the view marks them at their step."""
        self.cursor.differing = np.sort(np.asarray(records, dtype=np.int64))


__all__ = ["Playback", "Step"]
