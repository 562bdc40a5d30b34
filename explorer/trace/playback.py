"""Stepping through a trace: the model behind the animation (numpy only, no Qt).

A *step* is one source line within one phase of the selected work-group, in the order the
group first executed it; stepping by iteration splits a line the work-items execute several
times in a phase (a loop body) into one step per pass, from each work-item's own access
order (``Trace.seq``), so a walk along K or an inner product over a tile animates pass by
pass. Everything a view shows for a step (the tile a group loads, the elements read and
written, the local memory each work-item wrote, what a work-item touched) is a selection of
the trace's own records, never re-derived. Values come from ``Trace.values`` when recorded,
else from the run's own arrays: a local element holds the global element its writer copied.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.trace.columns import (
    element_column,
    line_column,
    record_columns,
    recorded_values,
    value_reader,
)
from explorer.trace.grids import Box, Grid, box_of
from explorer.trace.recorded import (
    ATOMIC,
    BARRIER,
    FENCE,
    GLOBAL,
    LOCAL,
    READ,
    RMW,
    WRITE,
    Trace,
    word_buffer,
    word_oob,
    word_phase,
    word_site,
)


@dataclass(frozen=True)
class Step:
    index: int
    phase: int
    line: int
    iteration: int = 0  # which pass of the line within the phase (0 when stepping by line)


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
    _by_buffer: tuple[np.ndarray, np.ndarray] | None = None

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


# Per op code (READ … FENCE): whether the op reads, whether it writes; a table lookup is far
# cheaper than ``np.isin`` on the few records of one step.
READS = np.array([True, False, True, True, False, False])
WRITES = np.array([False, True, True, True, False, False])
KEY_ITERATION = 1 << 24  # passes of one line per phase that a step key can tell apart
KEY_LINE = 1 << 20
Contents = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # see local_contents


def _passes(where: np.ndarray, owner: np.ndarray) -> np.ndarray:
    """Per record, how many times before it its owner (work-item) reached the same ``where``
    (a phase and site): records of one ``where`` in record order are in (work-item, sequence)
    order, so a stable sort by ``where`` alone groups each work-item's passes."""
    narrow = where.astype(np.uint16) if int(where.max()) < 1 << 16 else where
    order = np.argsort(narrow, kind="stable")
    k, w = where[order], owner[order]
    starts = np.r_[True, (k[1:] != k[:-1]) | (w[1:] != w[:-1])]
    position = np.arange(k.size)
    passes = np.zeros(where.size, dtype=np.int64)
    passes[order] = position - np.maximum.accumulate(np.where(starts, position, 0))
    return passes


def _stable_order(step: np.ndarray, count: int) -> np.ndarray:
    """The positions of ``step`` in step order, each step's in their own order. Fewer than
    65536 steps (always, in practice): a 16-bit key sorts by radix, in O(n)."""
    narrow = step.astype(np.uint16) if count <= 1 << 16 else step
    return np.argsort(narrow, kind="stable")


def _no_columns() -> GroupColumns:
    empty = np.zeros(0, dtype=np.int64)
    return GroupColumns(empty, empty, empty, empty, np.zeros(0, dtype=bool), empty, empty, empty)


class Playback:
    """The selected group's steps, and the records behind each.

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
        self.trace = trace
        self.grids = grids
        self.by_iteration = by_iteration
        self.arrays: dict[str, np.ndarray] = dict(arrays or {})
        self.group_linear = trace.group_linear()  # per work-item
        self.local_linear = trace.local_linear()
        self.line = line_column(trace)
        self.line_of_site = np.array([s.line for s in trace.sites] + [0], dtype=np.int32)
        self._site_ops = trace.site_ops()
        self.index = element_column(trace)
        (self.wi, self.seq, self.phase, self.site, self.op, self.buffer, self.oob) = record_columns(
            trace
        )
        kept = np.asarray(trace.kept, dtype=np.int64)
        self._wi_start = np.cumsum(kept) - kept
        traced = np.unique(self.group_linear)
        self.traced_groups = set(int(g) for g in traced)
        gx, gy, _ = trace.num_groups
        self.num_groups = trace.num_groups
        total = int(np.prod(trace.num_groups))
        self.dispatch_rank = np.full(total, -1, dtype=np.int64)
        order = np.asarray(trace.dispatch_order, dtype=np.int64).reshape(-1, 3)
        self.dispatch_rank[order[:, 0] + gx * (order[:, 1] + gy * order[:, 2])] = np.arange(
            order.shape[0]
        )
        self.group: tuple[int, int, int] | None = None
        self.steps: list[Step] = []
        self._records = np.zeros(0, dtype=np.int64)
        self._group_words = np.zeros(0, dtype=np.uint32)  # per record of the group
        self._group_wi = np.zeros(0, dtype=np.int64)
        self._group_kept = np.zeros(0, dtype=np.int64)  # records of each of its work-items
        self._group_local = np.zeros(0, dtype=np.int64)  # per record: its linear local id
        self._group_seq = np.zeros(0, dtype=np.int64)
        self._step_order = np.zeros(0, dtype=np.int64)
        self._g = _no_columns()
        self._g_values: np.ndarray | None = None
        self._by_step = np.zeros(0, dtype=np.int64)  # the group's records, step by step
        self._offsets = np.zeros(1, dtype=np.int64)  # step i: _by_step[_offsets[i]:_offsets[i+1]]
        self._focus: dict[int, np.ndarray] = {}
        self._extent: dict[int, tuple[Box | None, Box | None]] = {}
        self._local_writes: dict[int, np.ndarray] = {}
        self._contents: dict[int, tuple[tuple[int, int], Contents]] = {}
        self._group_wis: dict[int, int] = {}  # local linear id → work-item index
        self._heat: dict[int, np.ndarray] = {}
        self._element_heat: dict[int, np.ndarray] = {}
        self._values: dict[int, np.ndarray | None] = {}
        self._products: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._partial: tuple[int, np.ndarray] = (0, np.zeros(0))
        self._out_elements: dict[int, np.ndarray] = {}
        self._written_at: dict[int, np.ndarray] = {}
        # What each record read or stored, as a number (NaN: not recorded); None: no values.
        self.recorded = recorded_values(trace)
        self._read_value = value_reader(trace)
        first = min(self.traced_groups) if self.traced_groups else 0
        self.select_group((first % gx, (first // gx) % gy, first // (gx * gy)))

    # -- selection ---------------------------------------------------------------------
    def group_index(self, group: tuple[int, int, int]) -> int:
        gx, gy, _ = self.num_groups
        return group[0] + gx * (group[1] + gy * group[2])

    def is_traced(self, group: tuple[int, int, int]) -> bool:
        return self.group_index(group) in self.traced_groups

    def select_group(self, group: tuple[int, int, int]) -> bool:
        """Select a group; False when it was not traced (trace it, then select again)."""
        g = self.group_index(group)
        if g not in self.traced_groups:
            return False
        self.group = tuple(group)  # type: ignore[assignment]
        wis = np.nonzero(self.group_linear == g)[0]
        self._group_wis = {int(self.local_linear[w]): int(w) for w in wis}
        kept = np.asarray(self.trace.kept, dtype=np.int64)[wis]
        self._group_kept = kept
        self._group_local = np.repeat(self.local_linear[wis].astype(np.int64), kept)
        self._group_wi = np.repeat(wis.astype(np.int64), kept)
        self._group_seq = np.arange(int(kept.sum()), dtype=np.int64) - np.repeat(
            np.cumsum(kept) - kept, kept
        )
        self._records = self._wi_start[self._group_wi] + self._group_seq
        # The group's own columns, gathered once: every step, box and mask of the group
        # selects from these instead of from the whole trace.
        self._group_words = np.asarray(self.trace.word[self._records])
        self.steps = self._make_steps()
        self._g, self._g_values = self._gather_columns(), None
        self._focus, self._extent, self._local_writes, self._contents = {}, {}, {}, {}
        self._products = None
        return True

    def set_by_iteration(self, on: bool) -> None:
        """Step by loop pass (on) or by source line (off); the group stays selected."""
        if on == self.by_iteration and self.group is not None:
            return  # already so: its steps stand
        self.by_iteration = on
        if self.group is not None:
            self.select_group(self.group)

    def _gather_columns(self) -> GroupColumns:
        """The group's columns in step order: gathered in the group's own order (each
        work-item's records lie together in the trace, so the reads run forward), then
        permuted, which stays in cache."""
        order = self._step_order
        words = self._group_words[order]
        buffer = word_buffer(words).astype(np.int64)
        sizes = np.array([b.elem_size for b in self.trace.buffers] + [1], dtype=np.int64)
        offset = np.asarray(self.trace.offset[self._records]).astype(np.int64)[order]
        shifts = np.log2(np.maximum(sizes, 1)).astype(np.int64)
        if (sizes == 1 << shifts).all():  # element sizes of 2^k bytes: a shift, not a division
            index = offset >> shifts[buffer]
        else:
            index = offset // sizes[buffer]
        n = len(self.steps)
        return GroupColumns(
            records=self._by_step,
            step=np.repeat(np.arange(n, dtype=np.int64), np.diff(self._offsets)),
            phase=word_phase(words).astype(np.int64),
            buffer=buffer,
            inside=(buffer >= 0) & (buffer < len(self.trace.buffers)) & ~word_oob(words),
            op=self._site_ops[word_site(words)],
            index=index,
            local=self._group_local[order],
        )

    def _values_in_step_order(self) -> np.ndarray | None:
        """What each of the group's records read or stored, in step order (NaN: not
        recorded); None when the trace has no values."""
        if self._read_value is None or self.trace.values is None:
            return None
        if self._g_values is None:
            raw = np.asarray(self.trace.values[self._records])  # each work-item's in a run
            self._g_values = self._read_value(raw, self._group_words)[self._step_order]
        return self._g_values

    def _make_steps(self) -> list[Step]:
        recs = self._records  # in (work-item, sequence) order
        if recs.size == 0:
            self._by_step, self._offsets = recs, np.zeros(1, dtype=np.int64)
            self._step_order = recs
            return []
        words = self._group_words
        kept = self._group_kept[self._group_kept > 0]
        n, width = int(kept[0]), int(kept.size)
        if (kept == n).all() and (words.reshape(width, n) == words[:n]).all():
            # Every work-item made the same accesses in the same order (the common case):
            # the steps of one are the steps of all, and the group's step order follows
            # from one work-item's without sorting the whole group.
            own = np.arange(n, dtype=np.int64)
            steps, step_one = self._step_codes(words[:n], np.zeros(n, dtype=np.int64), own)
            per = np.bincount(step_one, minlength=len(steps))
            one = _stable_order(step_one, len(steps))
            start = np.r_[0, np.cumsum(per)]
            block = step_one[one]
            place = width * start[block] + np.arange(n) - start[block]
            lanes = np.arange(width, dtype=np.int64)[:, None]
            by_step = np.empty(width * n, dtype=np.int64)
            by_step[(place[None, :] + lanes * per[block][None, :]).ravel()] = (
                lanes * n + one[None, :]
            ).ravel()
            self._offsets = np.r_[0, np.cumsum(per * width)]
        else:
            steps, step_of = self._step_codes(words, self._group_wi, self._group_seq)
            by_step = _stable_order(step_of, len(steps))
            self._offsets = np.r_[0, np.cumsum(np.bincount(step_of, minlength=len(steps)))]
        self._step_order = by_step  # the group's records (its own order) in step order
        self._by_step = recs[by_step]
        return steps

    def _step_codes(
        self, words: np.ndarray, owner: np.ndarray, seq: np.ndarray
    ) -> tuple[list[Step], np.ndarray]:
        """The steps of these records and the step of each: the records of each work-item
        (``owner``) lie together, the ``seq``-th of its own in its order."""
        phase = word_phase(words).astype(np.int64)
        site = word_site(words).astype(np.int64)
        line = self.line_of_site[site].astype(np.int64)
        passes = np.zeros(words.size, dtype=np.int64)
        if self.by_iteration:
            # The how-many-th time this work-item reached this site in this phase.
            passes = _passes(phase * (int(site.max()) + 1) + site, owner)
            passes = np.minimum(passes, KEY_ITERATION - 1)
        lines, npasses = int(line.max()) + 1, int(passes.max()) + 1
        span = (int(phase.max()) + 1) * lines * npasses
        if span <= 1 << 22:
            # (phase, line, pass) as one dense code: present codes, in order, without a sort.
            code = (phase * lines + line) * npasses + passes
            present = np.zeros(span, dtype=bool)
            present[code] = True
            codes = np.flatnonzero(present)
            rank_of = np.zeros(span, dtype=np.int64)
            rank_of[codes] = np.arange(codes.size)
            inverse = rank_of[code]
            u_phase = codes // (lines * npasses)
            u_line = (codes // npasses) % lines
            u_pass = codes % npasses
        else:
            key = (phase * KEY_LINE + line) * KEY_ITERATION + passes
            uniq, inverse = np.unique(key, return_inverse=True)
            inverse = inverse.ravel()
            u_phase = uniq // (KEY_LINE * KEY_ITERATION)
            u_line = (uniq // KEY_ITERATION) % KEY_LINE
            u_pass = uniq % KEY_ITERATION
        count = u_phase.size
        first = np.full(count, np.iinfo(np.int64).max)
        np.minimum.at(first, inverse, seq)
        # Within a phase: the order in which the group first reached each (line, pass).
        order = np.lexsort((first, u_phase))
        rank = np.empty(count, dtype=np.int64)
        rank[order] = np.arange(count)
        steps = [
            Step(i, int(u_phase[j]), int(u_line[j]), int(u_pass[j])) for i, j in enumerate(order)
        ]
        return steps, rank[inverse]

    @property
    def phases(self) -> int:
        return (max(s.phase for s in self.steps) + 1) if self.steps else 0

    def step_records(self, step: int) -> np.ndarray:
        """Record indices of the selected group at one step (phase, line and pass)."""
        return self._by_step[self._offsets[step] : self._offsets[step + 1]]

    def phase_records(self, phase: int) -> np.ndarray:
        recs = self._records
        return recs[self.phase[recs] == phase]

    def first_step_of(self, phase: int, line: int | None = None) -> int | None:
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
        g = self._g
        mine = g.on(grid.buffer)
        if mine.size == 0:
            return boxes
        r, c = grid.element_rc(g.index[mine])
        sid = g.step[mine]
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
            g = self._g
            mine = g.on(grid.buffer)
            elements = g.index[mine]
            written = elements[WRITES[g.op[mine]]]
            self._extent[grid.buffer] = (box_of(grid, elements), box_of(grid, written))
        return self._extent[grid.buffer]

    def window_masks(
        self, grid: Grid, records: np.ndarray, window: Box
    ) -> tuple[np.ndarray, np.ndarray]:
        """(read, write) per element of a window of the buffer, for these records."""
        r0, r1, c0, c1 = window
        mine = records[(self.buffer[records] == grid.buffer) & ~self.oob[records]]
        r, c = grid.element_rc(self.index[mine])
        inside = (r >= r0) & (r < r1) & (c >= c0) & (c < c1)
        ops = self.op[mine][inside]
        r, c = r[inside] - r0, c[inside] - c0
        reads = np.zeros((r1 - r0, c1 - c0), dtype=bool)
        writes = np.zeros_like(reads)
        is_read, is_write = READS[ops], WRITES[ops]
        reads[r[is_read], c[is_read]] = True
        writes[r[is_write], c[is_write]] = True
        return reads, writes

    def written_before(self, grid: Grid, step: int, window: Box) -> np.ndarray:
        """Elements of a window the group has written at or before this step."""
        positions = self._writes(grid)
        done = positions[: int(np.searchsorted(positions, self._offsets[step + 1]))]
        r0, r1, c0, c1 = window
        r, c = grid.element_rc(self._g.index[done])
        inside = (r >= r0) & (r < r1) & (c >= c0) & (c < c1)
        out = np.zeros((r1 - r0, c1 - c0), dtype=bool)
        out[r[inside] - r0, c[inside] - c0] = True
        return out

    def _writes(self, grid: Grid) -> np.ndarray:
        """Positions in the step-ordered records of the group's writes to this buffer."""
        if grid.buffer not in self._local_writes:
            g = self._g
            mine = g.on(grid.buffer)
            self._local_writes[grid.buffer] = mine[WRITES[g.op[mine]]]
        return self._local_writes[grid.buffer]

    def work_item(self, local_linear: int) -> int | None:
        """The trace's index of the selected group's work-item with this local id."""
        return self._group_wis.get(local_linear)

    def work_item_step(self, local_linear: int, step: int) -> tuple[np.ndarray, np.ndarray]:
        """One work-item's records at this step, and at every pass of this step's line in
        this phase (the whole row of Asub it reads, not only this pass's element)."""
        w = self._group_wis.get(local_linear)
        if w is None or not self.steps:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty
        s = self.steps[step]
        recs = np.arange(self._wi_start[w], self._wi_start[w] + self.trace.kept[w])
        recs = recs[(self.phase[recs] == s.phase) & (self.line[recs] == s.line)]
        now = self.step_records(step)
        return recs[np.isin(recs, now)], recs

    def group_records(self, grid: Grid) -> np.ndarray:
        """Every record of the selected group on this buffer (inside it)."""
        recs = self._records
        return recs[(self.buffer[recs] == grid.buffer) & ~self.oob[recs]]

    def warp_offsets(
        self, step: int, warp: int, width: int = 32
    ) -> list[tuple[int, np.ndarray, int]]:
        """One warp's accesses at this step, per site: (site, the byte offset of each lane,
        -1 where the lane made none, bytes per access). A warp is ``width`` consecutive
        work-items of the group by linear local id."""
        t = self.trace
        recs = self.step_records(step) if self.steps else np.zeros(0, dtype=np.int64)
        lanes = self.local_linear[self.wi[recs]].astype(np.int64) - warp * width
        keep = (lanes >= 0) & (lanes < width) & (self.buffer[recs] >= 0) & ~self.oob[recs]
        sites = self.site[recs]
        out = []
        for site in np.unique(sites[keep]):
            sel = keep & (sites == site)
            offsets = np.full(width, -1, dtype=np.int64)
            offsets[lanes[sel]] = t.offset[recs[sel]]
            out.append((int(site), offsets, int(t.size[recs[sel]].max())))
        return out

    def partial_sums(self, grid: Grid, step: int, window: Box) -> np.ndarray | None:
        """Per element of a window of an output buffer: the sum so far of the products its
        work-item formed (``acc += x * y``) from the values its two reads on one line and
        pass returned, over the steps up to this one; NaN where the group writes nothing.
        None when the kernel forms no such products."""
        if self._products is None:
            self._products = self._make_products()
            self._partial = (0, np.zeros(int(np.prod(self.trace.local_size))))
        target, step_of, product = self._products
        mine = self._out_elements.get(grid.buffer)
        if target.size == 0 or mine is None:
            return None
        end = int(np.searchsorted(step_of, step, side="right"))  # products are in step order
        start, sums = self._partial
        if start > end:
            start, sums = 0, np.zeros_like(sums)
        sums = sums + np.bincount(
            target[start:end], weights=product[start:end], minlength=sums.size
        )
        self._partial = (end, sums)
        r0, r1, c0, c1 = window
        out = np.full((r1 - r0, c1 - c0), np.nan)
        has = mine >= 0
        rows, cols = grid.element_rc(mine[has])
        inside = (rows >= r0) & (rows < r1) & (cols >= c0) & (cols < c1)
        out[rows[inside] - r0, cols[inside] - c0] = sums[has][inside]
        return out

    def _make_products(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(local id, step, product) of every pass in which a work-item made exactly two
        reads on one line; also which output element each work-item writes."""
        t = self.trace
        empty = np.zeros(0, dtype=np.int64)
        g = self._g
        width = int(np.prod(t.local_size))
        writes = WRITES[g.op] & g.inside
        self._out_elements = {}
        for b, info in enumerate(t.buffers):
            if info.space == GLOBAL and not info.is_input:
                mine = g.on(b)
                sel = mine[WRITES[g.op[mine]]]
                elements = np.full(width, -1, dtype=np.int64)
                elements[g.local[sel]] = g.index[sel]
                self._out_elements[b] = elements
        if not self.arrays and self.trace.values is None:
            return empty, empty, np.zeros(0)  # no value to multiply yet (set_arrays comes next)
        reads = READS[g.op] & g.inside & ~writes
        positions = np.flatnonzero(reads)
        # Step order already: a stable sort by local id within each step groups each
        # work-item's reads of one pass.
        key = g.step[positions] * width + g.local[positions]
        order = np.argsort(key, kind="stable")
        key, positions = key[order], positions[order]
        read_recs = g.records[positions]
        if key.size < 2:
            return empty, empty, np.zeros(0)
        same_next = np.r_[key[1:] == key[:-1], False]
        same_prev = np.r_[False, key[1:] == key[:-1]]
        same_after = np.r_[key[2:] == key[:-2], False, False]
        first = same_next & ~same_prev & ~same_after  # exactly two reads in this pass
        i = np.nonzero(first)[0]
        values = self._read_values(read_recs, positions)
        product = values[i] * values[i + 1]
        keep = np.isfinite(product)
        return (key[i] % width)[keep], (key[i] // width)[keep], product[keep]  # step order

    def _read_values(self, recs: np.ndarray, positions: np.ndarray) -> np.ndarray:
        """The value each read returned: a global element's from the run's arrays; a local
        element's from the global element copied into it by the last write before the read
        (``positions``: the reads' places in the group's step-ordered records)."""
        t = self.trace
        values = np.full(recs.size, np.nan)
        recorded = self._values_in_step_order()
        if recorded is not None:
            values = recorded[positions]
            if bool(np.isfinite(values).all()):
                return values  # every read's value came from the trace itself
        buffers = self._g.buffer[positions]
        for b in np.unique(buffers):
            info = t.buffers[int(b)]
            sel = buffers == b
            if info.space == GLOBAL:
                flat = self._flat_values(int(b))
                if flat is not None:
                    index = self._g.index[positions[sel]]
                    inside = (index >= 0) & (index < flat.size)
                    got = np.full(index.size, np.nan)
                    got[inside] = flat[index[inside]]
                    values[sel] = np.where(np.isfinite(values[sel]), values[sel], got)
                continue
            grid = self.grids[int(b)]
            write_pos = self._writes(grid)
            write_recs = self._by_step[write_pos]
            src_buffer, src_index = self._copy_sources(write_recs)
            write_values = np.full(write_recs.size, np.nan)
            for sb in np.unique(src_buffer[src_buffer >= 0]):
                flat = self._flat_values(int(sb))
                if flat is None:
                    continue
                m = (src_buffer == sb) & (src_index < flat.size)
                write_values[m] = flat[src_index[m]]
            big = np.int64(self._by_step.size + 1)
            write_key = self._g.index[write_pos] * big + write_pos
            order = np.argsort(write_key)
            write_key, write_values = write_key[order], write_values[order]
            read_element = self._g.index[positions[sel]]
            at = np.searchsorted(write_key, read_element * big + positions[sel]) - 1
            found = (at >= 0) & (write_key[np.maximum(at, 0)] // big == read_element)
            got = np.full(read_element.size, np.nan)
            got[found] = write_values[at[found]]
            values[sel] = np.where(np.isfinite(values[sel]), values[sel], got)
        return values

    # -- values ----------------------------------------------------------------------------
    def set_arrays(self, arrays: dict[str, np.ndarray]) -> None:
        """The run's inputs and output by role: the values drawn where the trace has none."""
        self.arrays = dict(arrays)
        self._values = {}
        self._products = None

    def values(self, grid: Grid) -> np.ndarray | None:
        """The buffer's contents as (rows, cols) float64 from the run's arrays, or None."""
        if grid.buffer not in self._values:
            role = self.trace.buffers[grid.buffer].role
            array = self.arrays.get(role or "")
            out = None
            if array is not None and np.shape(array) == (grid.rows, grid.cols):
                out = np.asarray(array, dtype=np.float64)  # a matrix as the family sees it
            elif array is not None and array.size >= grid.rows * grid.cols:
                flat = np.asarray(array, dtype=np.float64).ravel()[: grid.rows * grid.cols]
                out = (
                    flat.reshape(grid.cols, grid.rows).T
                    if grid.column_major
                    else flat.reshape(grid.rows, grid.cols)
                )
            self._values[grid.buffer] = out
        return self._values[grid.buffer]

    def _copy_sources(self, writes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per local write record: the global (buffer, element) it copied, or (-1, -1).

        A copy ``Asub[ty][tx] = A[...]`` is a global read immediately followed, on the same
        line and by the same work-item, by a local write: the read's element is the source.
        """
        t = self.trace
        buffer = np.full(writes.size, -1, dtype=np.int16)
        index = np.full(writes.size, -1, dtype=np.int64)
        prev = writes - 1
        inside = prev >= 0
        prev = np.where(inside, prev, 0)
        spaces = np.array([b.space for b in t.buffers] + [-1], dtype=np.int8)
        ok = (
            inside
            & (self.wi[prev] == self.wi[writes])
            & (self.line[prev] == self.line[writes])
            & (spaces[self.buffer[prev]] == GLOBAL)
            & (self.op[prev] == READ)
            & ~self.oob[prev]
        )
        buffer[ok] = self.buffer[prev[ok]]
        index[ok] = self.index[prev[ok]]
        return buffer, index

    def local_contents(self, grid: Grid, step: int) -> Contents:
        """Per element of a local array at this step: the value it holds (NaN: unknown or
        never written), the local id of the work-item that wrote it (-1: none), whether it
        was written in the current phase, and the global element it was copied from
        (``(buffer << 40) | element``, -1 when it was not a copy)."""
        positions = self._writes(grid)
        done = int(np.searchsorted(positions, self._offsets[step + 1]))
        key = (done, self.steps[step].phase)
        cached = self._contents.get(grid.buffer)
        if cached is not None and cached[0] == key:
            return cached[1]  # no write to this array since: the same contents
        g = self._g
        pos = positions[:done]  # step order
        size = grid.rows * grid.cols
        element = g.index[pos]
        ok = (element >= 0) & (element < size)
        last = np.full(size, -1, dtype=np.int64)
        last[element[ok]] = np.nonzero(ok)[0]  # the latest write of each element wins
        pos = pos[np.sort(last[last >= 0])]
        writer = np.full(size, -1, dtype=np.int64)
        fresh = np.zeros(size, dtype=bool)
        value = np.full(size, np.nan)
        source = np.full(size, -1, dtype=np.int64)
        element = g.index[pos]
        ok = (element >= 0) & (element < size)
        pos, element = pos[ok], element[ok]
        recs = g.records[pos]
        writer[element] = g.local[pos]
        fresh[element[g.phase[pos] == self.steps[step].phase]] = True
        written_at = np.full(size, -1, dtype=np.int64)
        written_at[element] = g.step[pos]
        src_buffer, src_index = self._copy_sources(recs)
        copied = src_buffer >= 0
        source[element[copied]] = (src_buffer[copied].astype(np.int64) << 40) | src_index[copied]
        for b in np.unique(src_buffer[copied]):
            flat = self._flat_values(int(b))
            if flat is None:
                continue
            sel = copied & (src_buffer == b) & (src_index < flat.size)
            value[element[sel]] = flat[src_index[sel]]
        recorded = self._values_in_step_order()
        if recorded is not None:  # what the writes stored, as the trace recorded it
            stored = recorded[pos]
            known = np.isfinite(stored)
            value[element[known]] = stored[known]
        shape = (grid.rows, grid.cols)
        self._written_at[grid.buffer] = written_at.reshape(shape)
        contents: Contents = (
            value.reshape(shape),
            writer.reshape(shape),
            fresh.reshape(shape),
            source.reshape(shape),
        )
        self._contents[grid.buffer] = (key, contents)
        return contents

    def local_origin(self, grid: Grid, step: int, row: int, col: int) -> str:
        """Where a local element's value at this step came from, as a person reads it: the
        value, the global element it was copied from, the work-item and the step that
        wrote it (empty when nothing wrote it yet)."""
        value, writer, _fresh, source = self.local_contents(grid, step)
        at = int(self._written_at[grid.buffer][row, col])
        who = int(writer[row, col])
        if who < 0 or at < 0:
            return ""
        shown = float(value[row, col])
        text = f"{shown:.6g}" if np.isfinite(shown) else "?"
        lx, ly = (list(self.trace.local_size) + [1, 1])[:2]
        local = (who % lx, (who // lx) % ly, who // (lx * ly))
        made = self.steps[at]
        parts = [f" = {text}"]
        src = int(source[row, col])
        if src >= 0:
            sgrid = self.grids[src >> 40]
            sr, sc = sgrid.element_rc(np.array([src & ((1 << 40) - 1)]))
            at_src = f"[{int(sr[0])}][{int(sc[0])}]" if sgrid.rows > 1 else f"[{int(sc[0])}]"
            parts.append(f", copied from {sgrid.name}{at_src}")
        parts.append(f" by work-item {local} at step {at + 1} (line {made.line})")
        return "".join(parts)

    def written_values(self, grid: Grid, step: int, window: Box) -> np.ndarray | None:
        """Per element of a window: the last value the selected group stored there up to
        this step, as the trace recorded it (NaN where it stored none); None without
        recorded values (an accumulation in the output shows as it forms)."""
        if self.recorded is None:
            return None
        positions = self._writes(grid)
        done = positions[: int(np.searchsorted(positions, self._offsets[step + 1]))]
        recorded = self._values_in_step_order()
        assert recorded is not None
        stored = recorded[done]
        known = np.isfinite(stored)
        r0, r1, c0, c1 = window
        out = np.full((r1 - r0, c1 - c0), np.nan)
        rows, cols = grid.element_rc(self._g.index[done[known]])
        inside = (rows >= r0) & (rows < r1) & (cols >= c0) & (cols < c1)
        out[rows[inside] - r0, cols[inside] - c0] = stored[known][inside]  # later ones win
        return out

    def touched_by(self, grid: Grid, step: int) -> np.ndarray:
        """Per element, (rows, cols): the local id of the selected group's work-item that
        last touched it up to this step (a write, else a read), -1 where none did."""
        g = self._g
        end = int(self._offsets[step + 1])
        pos = g.on(grid.buffer)
        pos = pos[: int(np.searchsorted(pos, end))]
        size = grid.rows * grid.cols
        out = np.full(size, -1, dtype=np.int64)
        element = g.index[pos]
        ok = (element >= 0) & (element < size)
        who = g.local[pos]
        wrote = WRITES[g.op[pos]]
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

    def _flat_values(self, buffer: int) -> np.ndarray | None:
        """The buffer's values in its memory order (what an element index reads)."""
        role = self.trace.buffers[buffer].role
        array = self.arrays.get(role or "")
        if array is None:
            return None
        grid = self.grids[buffer]
        if grid.column_major and np.ndim(array) == 2:
            array = np.asarray(array).T  # a matrix as the family sees it, stored by columns
        return np.asarray(array, dtype=np.float64).ravel()

    def element_heat(self, grid: Grid) -> np.ndarray:
        """Global loads of each element, (rows, cols), summed over every traced group."""
        if grid.buffer not in self._element_heat:
            t = self.trace
            mask = (t.buffer == grid.buffer) & np.isin(t.op, (READ, RMW)) & ~t.oob
            index = self.index[mask]
            size = grid.rows * grid.cols
            counts = np.bincount(index[(index >= 0) & (index < size)], minlength=size)
            heat = (
                counts.reshape(grid.cols, grid.rows).T
                if grid.column_major
                else counts.reshape(grid.rows, grid.cols)
            )
            self._element_heat[grid.buffer] = heat
        return self._element_heat[grid.buffer]

    # -- what a view draws ----------------------------------------------------------------
    def cell_masks(self, grid: Grid, records: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(read, write) per cell for these records on this buffer."""
        mine = records[(self.buffer[records] == grid.buffer) & ~self.oob[records]]
        ops = self.op[mine]
        cells = grid.cell_of(self.index[mine])
        size = grid.cell_rows * grid.cell_cols
        reads = np.zeros(size, dtype=bool)
        writes = np.zeros(size, dtype=bool)
        ok = cells >= 0
        reads[cells[ok & np.isin(ops, (READ, RMW, ATOMIC))]] = True
        writes[cells[ok & np.isin(ops, (WRITE, RMW, ATOMIC))]] = True
        return reads.reshape(grid.cell_rows, grid.cell_cols), writes.reshape(
            grid.cell_rows, grid.cell_cols
        )

    def heat(self, grid: Grid) -> np.ndarray:
        """Global loads per cell over every traced group (mean per element of the cell)."""
        if grid.buffer in self._heat:
            return self._heat[grid.buffer]
        t = self.trace
        mask = (t.buffer == grid.buffer) & np.isin(t.op, (READ, RMW)) & ~t.oob
        cells = grid.cell_of(self.index[mask])
        size = grid.cell_rows * grid.cell_cols
        counts = np.bincount(cells[cells >= 0], minlength=size).astype(np.float64)
        per_cell = np.bincount(grid.cell_of(np.arange(grid.rows * grid.cols)), minlength=size)
        heat = (counts / np.maximum(per_cell, 1)).reshape(grid.cell_rows, grid.cell_cols)
        self._heat[grid.buffer] = heat
        return heat

    def local_writers(self, grid: Grid, step: int) -> tuple[np.ndarray, np.ndarray]:
        """Per element: the linear local id of the work-item whose value the cell holds at
        this step (the last writer up to it), or -1; and whether that write happened in the
        current phase."""
        _value, writer, fresh, _source = self.local_contents(grid, step)
        return writer, fresh

    def work_item_records(self, local_linear: int, phase: int) -> np.ndarray:
        w = self._group_wis.get(local_linear)
        if w is None:
            return np.zeros(0, dtype=np.int64)
        recs = np.arange(self._wi_start[w], self._wi_start[w] + self.trace.kept[w])
        return recs[self.phase[recs] == phase]

    def touching(self, grid: Grid, cell: int, phase: int) -> list[tuple[tuple[int, ...], int, str]]:
        """Who touched a cell in this phase of the selected group: (local id, line, op)."""
        t = self.trace
        recs = self.phase_records(phase)
        recs = recs[(self.buffer[recs] == grid.buffer) & ~self.oob[recs]]
        recs = recs[grid.cell_of(self.index[recs]) == cell]
        names = {READ: "read", WRITE: "write", RMW: "read-modify-write", ATOMIC: "atomic"}
        out = []
        for r in recs[:64]:
            local = tuple(int(v) for v in t.wi_local[self.wi[r]])
            out.append((local, int(self.line[r]), names.get(int(self.op[r]), "?")))
        return out

    def step_lines(self, step: int) -> list[int]:
        return [self.steps[step].line] if self.steps else []

    def barrier_steps(self) -> list[int]:
        """Steps whose line is a barrier: where the timeline draws its marks."""
        barrier_lines = {s.line for s in self.trace.sites if s.op == BARRIER}
        return [s.index for s in self.steps if s.line in barrier_lines]


__all__ = [
    "BARRIER",
    "FENCE",
    "GLOBAL",
    "LOCAL",
    "READS",
    "WRITES",
    "Playback",
    "Step",
]
