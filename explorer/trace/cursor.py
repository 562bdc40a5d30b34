"""Where the animation stands: the selected work-group, its steps and the current one, and
the work-items picked in it (the one whose reads are drawn, the one under the mouse, a
finding's); numpy only, no Qt."""

from __future__ import annotations

import numpy as np

from explorer.trace.grids import Grid
from explorer.trace.group_steps import GroupSteps
from explorer.trace.recorded import Finding
from explorer.trace.steps import Step
from explorer.trace.trace_index import WRITES, TraceIndex


class Cursor:
    """The selected group of a trace (the first traced one to begin with), the step shown,
    and the work-items picked in the group.

    ``by_iteration`` steps through a line executed several times in a phase pass by pass.
    The work-item whose reads are drawn starts at the centre of the group.
    """

    def __init__(self, index: TraceIndex, by_iteration: bool = True) -> None:
        self.index = index
        self.by_iteration = by_iteration
        self.group_steps: GroupSteps | None = None
        self.step = 0
        lx, ly = (list(index.trace.local_size) + [1, 1])[:2]
        self.selected_wi: int | None = lx // 2 + lx * (ly // 2)  # linear local id
        self.hover_wi: int | None = None  # the work-item under the mouse, drawn instead
        self.marked_wis: set[tuple[int, ...]] = set()  # a finding's (group + local ids)
        self.marked_elements: dict[str, set[int]] = {}  # a finding's, by buffer name
        # Records where a work-item first parts from a reference kernel (a trace diff's
        # ``first_records``), sorted; empty when the trace was compared with none.
        self.differing = np.zeros(0, dtype=np.int64)
        first = min(index.traced_groups) if index.traced_groups else 0
        self.select_group(index.group_at(first))

    # -- the group ---------------------------------------------------------------------------
    @property
    def group(self) -> tuple[int, int, int] | None:
        return self.group_steps.group if self.group_steps is not None else None

    @property
    def steps(self) -> list[Step]:
        return self.group_steps.steps if self.group_steps is not None else []

    @property
    def phases(self) -> int:
        return self.group_steps.phases if self.group_steps is not None else 0

    def select_group(self, group: tuple[int, int, int]) -> bool:
        """Select a group, at its first step; False when it was not traced (trace it, then
        select again)."""
        if not self.index.is_traced(group):
            return False
        self.group_steps = GroupSteps(self.index, group, self.by_iteration)
        self.step = 0
        return True

    def set_by_iteration(self, on: bool) -> None:
        """Step by loop pass (on) or by source line (off); the group stays selected and the
        cursor goes to the first step of the phase it was in."""
        if on == self.by_iteration and self.group_steps is not None:
            return  # already so: its steps stand
        self.by_iteration = on
        if self.group_steps is not None:
            phase = self.current.phase if self.steps else 0
            self.group_steps = GroupSteps(self.index, self.group_steps.group, on)
            self.step = self.first_step_of(phase) or 0

    # -- stepping ------------------------------------------------------------------------------
    @property
    def current(self) -> Step:
        """The step shown (there must be one: check ``steps`` first)."""
        return self.steps[self.step]

    def go(self, step: int) -> None:
        """To a step, held within the group's steps."""
        self.step = max(0, min(int(step), len(self.steps) - 1))

    def forward(self, loop: bool) -> bool:
        """One step on, from the last back to the first when ``loop``; False at the last
        step without it (the cursor stays)."""
        if self.step + 1 < len(self.steps):
            self.step += 1
        elif loop and self.steps:
            self.step = 0
        else:
            return False
        return True

    def back(self) -> None:
        self.go(max(0, self.step - 1))

    def first_step_of(self, phase: int, line: int | None = None) -> int | None:
        """The first step of a phase (at a line, when given; else that line's first step in
        any phase), or None."""
        if self.group_steps is None:
            return None
        return self.group_steps.first_step_of(phase, line)

    def last_step_of(self, phase: int) -> int | None:
        """The last step of a phase (where a phase's picture is complete), or None."""
        if self.group_steps is None:
            return None
        return self.group_steps.last_step_of(phase)

    # -- work-items ------------------------------------------------------------------------------
    @property
    def watched(self) -> int | None:
        """The work-item whose accesses are drawn: the one under the mouse, else the one
        picked."""
        return self.hover_wi if self.hover_wi is not None else self.selected_wi

    def pick_work_item(self, grid: Grid, row: int, col: int) -> bool:
        """Pick the work-item of the group that touched this element (its writer, else its
        first reader); False when none did."""
        if self.group_steps is None:
            return False
        index = self.index
        recs = self.group_steps.group_records(grid)
        hit = recs[index.index[recs] == grid.index_at(row, col)]
        if hit.size == 0:
            return False
        writes = hit[WRITES[index.op[hit]]]
        chosen = writes[0] if writes.size else hit[0]
        self.selected_wi = int(index.local_linear[index.wi[chosen]])
        self.hover_wi = None
        return True

    def mark(self, finding: Finding) -> bool:
        """Mark a finding's work-items and elements and go to its phase and line, in the
        group of its first work-item that was traced; True when that selected another
        group."""
        moved = False
        for w in finding.work_items:
            group = (int(w[0]), int(w[1]), int(w[2]))
            if self.group != group and self.index.is_traced(group):
                moved = self.select_group(group)
                break
        self.marked_wis = {tuple(w) for w in finding.work_items}
        self.marked_elements = {finding.buffer: set(finding.elements)} if finding.buffer else {}
        target = self.first_step_of(finding.phase or 0, finding.line)
        if target is not None:
            self.go(target)
        return moved

    def differing_now(self) -> np.ndarray:
        """The records of this step that are a work-item's first difference from the
        reference (none without a trace diff)."""
        if self.group_steps is None or self.differing.size == 0 or not self.steps:
            return np.zeros(0, dtype=np.int64)
        records = self.group_steps.step_records(self.step)
        return records[np.isin(records, self.differing)]

    def marked_records(self) -> np.ndarray | None:
        """The records, in this step's phase, of the marked work-items of the selected
        group; None when none of them is in it."""
        if self.group_steps is None or not self.steps:
            return None
        lx, ly = (list(self.index.trace.local_size) + [1, 1])[:2]
        marked = [w for w in self.marked_wis if tuple(w[:3]) == tuple(self.group or ())]
        if not marked:
            return None
        phase = self.current.phase
        return np.concatenate(
            [
                self.group_steps.work_item_records(w[3] + lx * (w[4] + ly * w[5]), phase)
                for w in marked
            ]
        )
