"""One work-group's records in step order, and what each step of it touched (numpy only).

Everything a view shows for a step (the tile a group loads, the elements read and written,
what a work-item touched, a warp's addresses) is a selection of the trace's own records,
never re-derived: this module makes those selections for the selected group.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.trace.columns import last_elements, spread
from explorer.trace.grids import Box, Grid, box_of
from explorer.trace.recorded import (
    ATOMIC,
    BARRIER,
    READ,
    RMW,
    WRITE,
    word_buffer,
    word_oob,
    word_phase,
    word_site,
)
from explorer.trace.steps import Step, cut_into_steps
from explorer.trace.trace_index import WRITES, TraceIndex

OP_WORDS = {READ: "read", WRITE: "write", RMW: "read-modify-write", ATOMIC: "atomic"}


@dataclass
class GroupColumns:
    """The selected group's records in step order, their columns gathered once: every box,
    mask and sum a frame draws selects from these (about 0.5 M records for a 16×16 group at
    768) instead of gathering from the whole trace again."""

    records: np.ndarray  # trace record index
    step: np.ndarray  # step of each
    phase: np.ndarray
    buffer: np.ndarray  # NO_BUFFER decoded as -1 … as ``word_buffer`` gives it
    inside: np.ndarray  # a buffer access within its buffer
    op: np.ndarray
    index: np.ndarray  # element index in its buffer
    local: np.ndarray  # linear local id of the work-item
    # The last element each covers: ``index`` but for an access wider than one element (a
    # vstore3 into an array of floats covers three).
    last: np.ndarray
    _by_buffer: tuple[np.ndarray, np.ndarray] | None = None

    def elements(self, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The elements the records at ``pos`` cover, and which of ``pos`` each is of."""
        return spread(self.index[pos], self.last[pos])

    def on(self, buffer: int) -> np.ndarray:
        """The positions, in step order, of the records inside this buffer."""
        if self._by_buffer is None:
            # Every buffer's positions from one stable sort by buffer (a radix sort of a
            # byte): a frame asks for each buffer's several times.
            count = int(self.buffer.max(initial=-1)) + 2
            key = np.where(self.inside, self.buffer + 1, 0)
            narrow = key.astype(np.uint8) if count <= 1 << 8 else key
            order = np.argsort(narrow, kind="stable")
            self._by_buffer = order, np.r_[0, np.cumsum(np.bincount(key, minlength=count))]
        order, starts = self._by_buffer
        if not 0 <= buffer < starts.size - 2:
            return order[:0]
        return order[starts[buffer + 1] : starts[buffer + 2]]


class GroupSteps:
    """The steps of one traced work-group and the records behind each.

    ``records`` and ``words`` are the group's records in its own order (each work-item's
    together); ``order`` lists their positions step by step, step ``i`` being
    ``order[offsets[i]:offsets[i + 1]]``; ``columns`` holds them in that order."""

    def __init__(self, index: TraceIndex, group: tuple[int, int, int], by_iteration: bool) -> None:
        self.index = index
        self.group = (int(group[0]), int(group[1]), int(group[2]))
        self.by_iteration = by_iteration
        trace = index.trace
        wis = np.nonzero(index.group_linear == index.group_index(group))[0]
        self.work_items = {int(index.local_linear[w]): int(w) for w in wis}
        kept = np.asarray(trace.kept, dtype=np.int64)[wis]
        seq = np.arange(int(kept.sum()), dtype=np.int64) - np.repeat(np.cumsum(kept) - kept, kept)
        self.records = index.wi_start[np.repeat(wis.astype(np.int64), kept)] + seq
        # The group's own words, gathered once: every step, box and mask of the group
        # selects from these instead of from the whole trace.
        self.words = np.asarray(trace.word[self.records])
        cut = cut_into_steps(self.words, kept, index.line_of_site, by_iteration)
        self.steps: list[Step] = cut.steps
        self.order, self.offsets = cut.order, cut.offsets
        self.by_step = self.records[self.order]  # the group's records, step by step
        local = np.repeat(index.local_linear[wis].astype(np.int64), kept)
        self.columns = self._gather_columns(local)
        self._focus: dict[int, np.ndarray] = {}
        self._extent: dict[int, tuple[Box | None, Box | None]] = {}
        self._writes: dict[int, np.ndarray] = {}

    def _gather_columns(self, local: np.ndarray) -> GroupColumns:
        """The group's columns in step order: gathered in the group's own order (each
        work-item's records lie together in the trace, so the reads run forward), then
        permuted, which stays in cache."""
        trace, order = self.index.trace, self.order
        words = self.words[order]
        buffer = word_buffer(words).astype(np.int64)
        sizes = np.array([b.elem_size for b in trace.buffers] + [1], dtype=np.int64)
        offset = np.asarray(trace.offset[self.records]).astype(np.int64)[order]
        shifts = np.log2(np.maximum(sizes, 1)).astype(np.int64)
        if (sizes == 1 << shifts).all():  # element sizes of 2^k bytes: a shift, not a division
            index = offset >> shifts[buffer]
        else:
            index = offset // sizes[buffer]
        last = np.maximum(index, last_elements(offset, trace.sizes_of(words), sizes[buffer]))
        n = len(self.steps)
        return GroupColumns(
            records=self.by_step,
            step=np.repeat(np.arange(n, dtype=np.int64), np.diff(self.offsets)),
            phase=word_phase(words).astype(np.int64),
            buffer=buffer,
            inside=(buffer >= 0) & (buffer < len(trace.buffers)) & ~word_oob(words),
            op=self.index.site_ops[word_site(words)],
            index=index,
            local=local[order],
            last=last,
        )

    # -- steps and phases --------------------------------------------------------------
    @property
    def phases(self) -> int:
        return (max(s.phase for s in self.steps) + 1) if self.steps else 0

    def step_records(self, step: int) -> np.ndarray:
        """Record indices of the group at one step (phase, line and pass)."""
        return self.by_step[self.offsets[step] : self.offsets[step + 1]]

    def end_of(self, step: int) -> int:
        """How many of the step-ordered records the steps up to this one hold."""
        return int(self.offsets[step + 1])

    def phase_records(self, phase: int) -> np.ndarray:
        recs = self.records
        return recs[self.index.phase[recs] == phase]

    def first_step_of(self, phase: int, line: int | None = None) -> int | None:
        """The first step of a phase (at a line, when given; else the line's first step
        in any phase), or None."""
        for s in self.steps:
            if s.phase == phase and (line is None or s.line == line):
                return s.index
        for s in self.steps:
            if line is not None and s.line == line:
                return s.index
        return None

    def last_step_of(self, phase: int) -> int | None:
        """The last step of a phase (where a phase's picture is complete)."""
        found = None
        for s in self.steps:
            if s.phase == phase:
                found = s.index
        return found

    def barrier_steps(self) -> list[int]:
        """Steps whose line is a barrier: where the timeline draws its marks."""
        barrier_lines = {s.line for s in self.index.trace.sites if s.op == BARRIER}
        return [s.index for s in self.steps if s.line in barrier_lines]

    # -- focus and context ---------------------------------------------------------------
    def focus(self, grid: Grid, step: int) -> Box | None:
        """The box of elements the group touches in this buffer at this step, or at the
        nearest step before it that touched the buffer (else the first after it): where a
        zoom window on the buffer stays while the group works elsewhere."""
        if grid.buffer not in self._focus:
            self._focus[grid.buffer] = self._make_focus(grid)
        box = self._focus[grid.buffer][step] if self.steps else None
        if box is None or box[0] < 0:
            return None
        return int(box[0]), int(box[1]), int(box[2]), int(box[3])

    def _make_focus(self, grid: Grid) -> np.ndarray:
        n = len(self.steps)
        boxes = np.full((n, 4), -1, dtype=np.int64)
        g = self.columns
        mine = g.on(grid.buffer)
        if mine.size == 0:
            return boxes
        elements, which = g.elements(mine)
        r, c = grid.element_rc(elements)
        sid = g.step[mine][which]
        starts = np.r_[0, np.nonzero(np.diff(sid))[0] + 1]
        at = sid[starts]
        boxes[at, 0] = np.minimum.reduceat(r, starts)
        boxes[at, 1] = np.maximum.reduceat(r, starts) + 1
        boxes[at, 2] = np.minimum.reduceat(c, starts)
        boxes[at, 3] = np.maximum.reduceat(c, starts) + 1
        has = boxes[:, 0] >= 0
        last = np.maximum.accumulate(np.where(has, np.arange(n), -1))
        last[last < 0] = int(np.argmax(has))  # before the first touch: the first touch
        return boxes[last]

    def extent(self, grid: Grid) -> tuple[Box | None, Box | None]:
        """(everything the group touches, everything it writes) in this buffer, as boxes:
        the group's tile of C is marked from the first step."""
        if grid.buffer not in self._extent:
            g = self.columns
            mine = g.on(grid.buffer)
            elements, which = g.elements(mine)
            written = elements[WRITES[g.op[mine]][which]]
            self._extent[grid.buffer] = (box_of(grid, elements), box_of(grid, written))
        return self._extent[grid.buffer]

    def writes(self, grid: Grid) -> np.ndarray:
        """Positions in the step-ordered records of the group's writes to this buffer."""
        if grid.buffer not in self._writes:
            g = self.columns
            mine = g.on(grid.buffer)
            self._writes[grid.buffer] = mine[WRITES[g.op[mine]]]
        return self._writes[grid.buffer]

    def writes_until(self, grid: Grid, step: int) -> np.ndarray:
        """``writes`` up to and including this step."""
        positions = self.writes(grid)
        return positions[: int(np.searchsorted(positions, self.offsets[step + 1]))]

    def written_before(self, grid: Grid, step: int, window: Box) -> np.ndarray:
        """Elements of a window the group has written at or before this step."""
        done = self.writes_until(grid, step)
        r0, r1, c0, c1 = window
        r, c = grid.element_rc(self.columns.elements(done)[0])
        inside = (r >= r0) & (r < r1) & (c >= c0) & (c < c1)
        out = np.zeros((r1 - r0, c1 - c0), dtype=bool)
        out[r[inside] - r0, c[inside] - c0] = True
        return out

    def touched_by(self, grid: Grid, step: int) -> np.ndarray:
        """Per element, (rows, cols): the local id of the group's work-item that last
        touched it up to this step (a write, else a read), -1 where none did."""
        g = self.columns
        pos = g.on(grid.buffer)
        pos = pos[: int(np.searchsorted(pos, self.end_of(step)))]
        size = grid.rows * grid.cols
        out = np.full(size, -1, dtype=np.int64)
        element, which = g.elements(pos)
        ok = (element >= 0) & (element < size)
        who = g.local[pos][which]
        wrote = WRITES[g.op[pos]][which]
        out[element[ok & ~wrote]] = who[ok & ~wrote]
        out[element[ok & wrote]] = who[ok & wrote]  # a write says more than a read
        return (
            out.reshape(grid.cols, grid.rows).T
            if grid.column_major
            else out.reshape(grid.rows, grid.cols)
        )

    def touching_window(self, grid: Grid, step: int, window: Box) -> np.ndarray:
        """``touched_by`` for the elements of a window."""
        r0, r1, c0, c1 = window
        return self.touched_by(grid, step)[r0:r1, c0:c1]

    # -- work-items ------------------------------------------------------------------------
    def work_item(self, local_linear: int) -> int | None:
        """The trace's index of the group's work-item with this local id."""
        return self.work_items.get(local_linear)

    def work_item_records(self, local_linear: int, phase: int) -> np.ndarray:
        """One work-item's records in a phase."""
        w = self.work_items.get(local_linear)
        if w is None:
            return np.zeros(0, dtype=np.int64)
        recs = self.index.records_of(w)
        return recs[self.index.phase[recs] == phase]

    def work_item_step(self, local_linear: int, step: int) -> tuple[np.ndarray, np.ndarray]:
        """One work-item's records at this step, and at every pass of this step's line in
        this phase (the whole row of Asub it reads, not only this pass's element)."""
        w = self.work_items.get(local_linear)
        if w is None or not self.steps:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty
        s = self.steps[step]
        recs = self.index.records_of(w)
        recs = recs[(self.index.phase[recs] == s.phase) & (self.index.line[recs] == s.line)]
        now = self.step_records(step)
        return recs[np.isin(recs, now)], recs

    def group_records(self, grid: Grid) -> np.ndarray:
        """Every record of the group on this buffer (inside it)."""
        recs, index = self.records, self.index
        return recs[(index.buffer[recs] == grid.buffer) & ~index.oob[recs]]

    def touching_records(self, grid: Grid, cell: int, phase: int) -> np.ndarray:
        """The group's records of a cell in this phase (the first 64)."""
        index = self.index
        recs = self.phase_records(phase)
        recs = recs[(index.buffer[recs] == grid.buffer) & ~index.oob[recs]]
        return recs[grid.cell_of(index.index[recs]) == cell][:64]

    def touching(self, grid: Grid, cell: int, phase: int) -> list[tuple[tuple[int, ...], int, str]]:
        """Who touched a cell in this phase of the group: (local id, line, op)."""
        index = self.index
        out = []
        for r in self.touching_records(grid, cell, phase):
            local = tuple(int(v) for v in index.trace.wi_local[index.wi[r]])
            out.append((local, int(index.line[r]), OP_WORDS.get(int(index.op[r]), "?")))
        return out

    def warp_offsets(
        self, step: int, warp: int, width: int = 32
    ) -> list[tuple[int, np.ndarray, int]]:
        """One warp's accesses at this step, per site: (site, the byte offset of each lane,
        -1 where the lane made none, bytes per access). A warp is ``width`` consecutive
        work-items of the group by linear local id."""
        index, t = self.index, self.index.trace
        recs = self.step_records(step) if self.steps else np.zeros(0, dtype=np.int64)
        lanes = index.local_linear[index.wi[recs]].astype(np.int64) - warp * width
        keep = (lanes >= 0) & (lanes < width) & (index.buffer[recs] >= 0) & ~index.oob[recs]
        sites = index.site[recs]
        out = []
        for site in np.unique(sites[keep]):
            sel = keep & (sites == site)
            offsets = np.full(width, -1, dtype=np.int64)
            offsets[lanes[sel]] = t.offset[recs[sel]]
            out.append((int(site), offsets, int(t.size[recs[sel]].max())))
        return out
