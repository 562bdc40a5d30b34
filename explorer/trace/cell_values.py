"""What each buffer and local-memory cell holds at a step (numpy only, no Qt).

Values come from ``Trace.values`` when the trace recorded them, else from the run's own
arrays: a local element holds the global element its writer copied, and an output element
the sum so far of the products its work-item formed from the values it read.
"""

from __future__ import annotations

import numpy as np

from explorer.trace.columns import element_value_reader, punned_records, value_reader
from explorer.trace.grids import Box, Grid
from explorer.trace.group_steps import GroupSteps
from explorer.trace.recorded import GLOBAL, READ
from explorer.trace.trace_index import READS, WRITES, TraceIndex

# Per element of a local array (see ``CellValues.local_contents``): value, writer, whether
# written in this phase, the global element it was copied from.
Contents = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


class CellValues:
    """The values a trace's cells hold: from the run's arrays (role → array, its inputs and
    output) for whole buffers, and step by step for the selected group's local memory and
    output. The group's answers are kept until another group is asked about."""

    def __init__(self, index: TraceIndex, arrays: dict[str, np.ndarray] | None = None) -> None:
        self.index = index
        self.arrays: dict[str, np.ndarray] = dict(arrays or {})
        self._read_value = value_reader(index.trace)
        self._element_value = element_value_reader(index.trace)
        self._punned = punned_records(index.trace)
        self._buffers: dict[int, np.ndarray | None] = {}
        self._group: GroupSteps | None = None  # whose answers the caches below hold
        self._stored: np.ndarray | None = None
        self._contents: dict[int, tuple[tuple[int, int], Contents]] = {}
        self._written_at: dict[int, np.ndarray] = {}
        self._products: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
        self._partial: tuple[int, np.ndarray] = (0, np.zeros(0))
        self._out_elements: dict[int, np.ndarray] = {}

    def set_arrays(self, arrays: dict[str, np.ndarray]) -> None:
        """The run's inputs and output by role: the values drawn where the trace has none."""
        self.arrays = dict(arrays)
        self._buffers, self._contents = {}, {}
        self._products = None

    def _follow(self, group: GroupSteps) -> None:
        """Forget what was worked out for another group (or the same group cut otherwise)."""
        if group is not self._group:
            self._group, self._stored = group, None
            self._contents, self._written_at = {}, {}
            self._products, self._out_elements = None, {}

    # -- whole buffers -------------------------------------------------------------------------
    def buffer(self, grid: Grid) -> np.ndarray | None:
        """The buffer's contents as (rows, cols) float64 from the run's arrays, or None."""
        if grid.buffer not in self._buffers:
            role = self.index.trace.buffers[grid.buffer].role
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
            self._buffers[grid.buffer] = out
        return self._buffers[grid.buffer]

    def _flat(self, buffer: int) -> np.ndarray | None:
        """The buffer's values in its memory order (what an element index reads)."""
        role = self.index.trace.buffers[buffer].role
        array = self.arrays.get(role or "")
        if array is None:
            return None
        grid = self.index.grids[buffer]
        if grid.column_major and np.ndim(array) == 2:
            array = np.asarray(array).T  # a matrix as the family sees it, stored by columns
        return np.asarray(array, dtype=np.float64).ravel()

    def _stored_values(self, group: GroupSteps) -> np.ndarray | None:
        """What each of the group's records read or stored, in step order (NaN: not
        recorded); None when the trace has no values."""
        values = self.index.trace.values
        if self._read_value is None or values is None:
            return None
        self._follow(group)
        if self._stored is None:
            raw = np.asarray(values[group.records])  # each work-item's in a run
            stored = self._read_value(raw, group.words)
            # An access through a cast (an int stored into a uint buffer): its first
            # element as the buffer holds it, not as the access's type reads the bits.
            punned = np.flatnonzero(self._punned(group.words))
            if punned.size and self._element_value is not None:
                first = np.zeros(punned.size, dtype=np.int64)
                stored[punned] = self._element_value(group.records[punned], first)
            self._stored = stored[group.order]
        return self._stored

    def _copy_sources(self, writes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per local write record: the global (buffer, element) it copied, or (-1, -1), and
        the last element the read covers (a vload3 of floats: two past its first).

        A copy ``Asub[ty][tx] = A[...]`` is a global read immediately followed, on the same
        line and by the same work-item, by a local write: the read's element is the source.
        """
        x = self.index
        buffer = np.full(writes.size, -1, dtype=np.int16)
        index = np.full(writes.size, -1, dtype=np.int64)
        last = np.full(writes.size, -1, dtype=np.int64)
        prev = writes - 1
        inside = prev >= 0
        prev = np.where(inside, prev, 0)
        spaces = np.array([b.space for b in x.trace.buffers] + [-1], dtype=np.int8)
        ok = (
            inside
            & (x.wi[prev] == x.wi[writes])
            & (x.line[prev] == x.line[writes])
            & (spaces[x.buffer[prev]] == GLOBAL)
            & (x.op[prev] == READ)
            & ~x.oob[prev]
        )
        buffer[ok] = x.buffer[prev[ok]]
        index[ok] = x.index[prev[ok]]
        last[ok] = x.last[prev[ok]]
        return buffer, index, last

    def _copied_values(self, writes: np.ndarray) -> np.ndarray:
        """Per local write record: the value of the global element it copied (NaN where it
        copied none, or the run's arrays lack it)."""
        src_buffer, src_index, _ = self._copy_sources(writes)
        values = np.full(writes.size, np.nan)
        for b in np.unique(src_buffer[src_buffer >= 0]):
            flat = self._flat(int(b))
            if flat is None:
                continue
            sel = (src_buffer == b) & (src_index < flat.size)
            values[sel] = flat[src_index[sel]]
        return values

    # -- local memory ----------------------------------------------------------------------------
    def local_contents(self, group: GroupSteps, grid: Grid, step: int) -> Contents:
        """Per element of a local array at this step: the value it holds (NaN: unknown or
        never written), the local id of the work-item that wrote it (-1: none), whether it
        was written in the current phase, and the global element it was copied from
        (``(buffer << 40) | element``, -1 when it was not a copy)."""
        self._follow(group)
        positions = group.writes(grid)
        done = int(np.searchsorted(positions, group.offsets[step + 1]))
        key = (done, group.steps[step].phase)
        cached = self._contents.get(grid.buffer)
        if cached is not None and cached[0] == key:
            return cached[1]  # no write to this array since: the same contents
        g = group.columns
        size = grid.rows * grid.cols
        pos, element = _last_writes(group, positions[:done], size)
        writer = np.full(size, -1, dtype=np.int64)
        writer[element] = g.local[pos]
        fresh = np.zeros(size, dtype=bool)
        fresh[element[g.phase[pos] == group.steps[step].phase]] = True
        written_at = np.full(size, -1, dtype=np.int64)
        written_at[element] = g.step[pos]
        value, source = self._local_values(group, pos, element, size)
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

    def _local_values(
        self, group: GroupSteps, pos: np.ndarray, element: np.ndarray, size: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """Per element of a local array, from the writes that hold it (``pos``, in step
        order, writing ``element``): its value (the global element it copied, or what the
        write stored as recorded) and where it was copied from."""
        value = np.full(size, np.nan)
        source = np.full(size, -1, dtype=np.int64)
        src_buffer, src_index, src_last = self._copy_sources(group.columns.records[pos])
        # A write wider than one element copies its read element by element: the k-th it
        # covers (vstore3(vload3(i, xyz), l, tile): tile[3l + k]) holds the read's k-th
        # (xyz[3i + k]), where the read covers one; else its value is not known.
        src_index = src_index + (element - group.columns.index[pos])
        copied = (src_buffer >= 0) & (src_index <= src_last)
        source[element[copied]] = (src_buffer[copied].astype(np.int64) << 40) | src_index[copied]
        for b in np.unique(src_buffer[copied]):
            flat = self._flat(int(b))
            if flat is None:
                continue
            sel = copied & (src_buffer == b) & (src_index < flat.size)
            value[element[sel]] = flat[src_index[sel]]
        recorded = self._stored_values(group)
        if recorded is not None:  # what the writes stored, as the trace recorded it
            got = self._stored_in(group, recorded, pos, element)
            known = np.isfinite(got)
            value[element[known]] = got[known]
        return value, source

    def _stored_in(
        self, group: GroupSteps, recorded: np.ndarray, pos: np.ndarray, element: np.ndarray
    ) -> np.ndarray:
        """What the writes at ``pos`` (the group's step-ordered places, one per element it
        covers) stored in ``element`` as the trace recorded it: the record's value for its
        first element, the vector's other components for the others (a vstore4's second
        float in the next element); NaN where the trace has none."""
        got = np.asarray(recorded[pos], dtype=np.float64)
        k = element - group.columns.index[pos]
        later = np.flatnonzero(k != 0)
        got[later] = np.nan
        if later.size and self._element_value is not None:
            got[later] = self._element_value(group.columns.records[pos[later]], k[later])
        return got

    def local_origin(self, group: GroupSteps, grid: Grid, step: int, row: int, col: int) -> str:
        """Where a local element's value at this step came from, as a person reads it: the
        value, the global element it was copied from, the work-item and the step that
        wrote it (empty when nothing wrote it yet)."""
        value, writer, _fresh, source = self.local_contents(group, grid, step)
        at = int(self._written_at[grid.buffer][row, col])
        who = int(writer[row, col])
        if who < 0 or at < 0:
            return ""
        shown = float(value[row, col])
        text = f"{shown:.6g}" if np.isfinite(shown) else "?"
        made = group.steps[at]
        parts = [f" = {text}"]
        src = int(source[row, col])
        if src >= 0:
            sgrid = self.index.grids[src >> 40]
            sr, sc = sgrid.element_rc(np.array([src & ((1 << 40) - 1)]))
            at_src = f"[{int(sr[0])}][{int(sc[0])}]" if sgrid.rows > 1 else f"[{int(sc[0])}]"
            parts.append(f", copied from {sgrid.name}{at_src}")
        local = self.index.local_id(who)
        parts.append(f" by work-item {local} at step {at + 1} (line {made.line})")
        return "".join(parts)

    # -- the output as the group writes it -------------------------------------------------------
    def written_values(
        self, group: GroupSteps, grid: Grid, step: int, window: Box
    ) -> np.ndarray | None:
        """Per element of a window: the last value the group stored there up to this step,
        as the trace recorded it (NaN where it stored none); None without recorded values
        (an accumulation in the output shows as it forms)."""
        recorded = self._stored_values(group)
        if recorded is None:
            return None
        done = group.writes_until(grid, step)
        element, which = group.columns.elements(done)  # a vstore4: its four elements
        stored = self._stored_in(group, recorded, done[which], element)
        known = np.isfinite(stored)
        r0, r1, c0, c1 = window
        out = np.full((r1 - r0, c1 - c0), np.nan)
        rows, cols = grid.element_rc(element[known])
        inside = (rows >= r0) & (rows < r1) & (cols >= c0) & (cols < c1)
        out[rows[inside] - r0, cols[inside] - c0] = stored[known][inside]  # later ones win
        return out

    def partial_sums(
        self, group: GroupSteps, grid: Grid, step: int, window: Box
    ) -> np.ndarray | None:
        """Per element of a window of an output buffer: the sum so far of the products its
        work-item formed (``acc += x * y``) from the values its two reads on one line and
        pass returned, over the steps up to this one; NaN where the group writes nothing.
        None when the kernel forms no such products."""
        self._follow(group)
        if self._products is None:
            self._products = self._make_products(group)
            self._partial = (0, np.zeros(int(np.prod(self.index.trace.local_size))))
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

    def _make_products(self, group: GroupSteps) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(local id, step, product) of every pass in which a work-item made exactly two
        reads on one line; also which output element each work-item writes."""
        t = self.index.trace
        empty = np.zeros(0, dtype=np.int64)
        g = group.columns
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
        if not self.arrays and t.values is None:
            return empty, empty, np.zeros(0)  # no value to multiply yet (set_arrays comes next)
        reads = READS[g.op] & g.inside & ~writes
        positions = np.flatnonzero(reads)
        # Step order already: a stable sort by local id within each step groups each
        # work-item's reads of one pass.
        key = g.step[positions] * width + g.local[positions]
        order = np.argsort(key, kind="stable")
        key, positions = key[order], positions[order]
        if key.size < 2:
            return empty, empty, np.zeros(0)
        same_next = np.r_[key[1:] == key[:-1], False]
        same_prev = np.r_[False, key[1:] == key[:-1]]
        same_after = np.r_[key[2:] == key[:-2], False, False]
        first = same_next & ~same_prev & ~same_after  # exactly two reads in this pass
        i = np.nonzero(first)[0]
        values = self._read_values(group, positions)
        product = values[i] * values[i + 1]
        keep = np.isfinite(product)
        return (key[i] % width)[keep], (key[i] // width)[keep], product[keep]  # step order

    def _read_values(self, group: GroupSteps, positions: np.ndarray) -> np.ndarray:
        """The value each read returned (``positions``: the reads' places in the group's
        step-ordered records): a global element's from the run's arrays; a local element's
        from the global element copied into it by the last write before the read."""
        values = np.full(positions.size, np.nan)
        recorded = self._stored_values(group)
        if recorded is not None:
            values = recorded[positions]
            if bool(np.isfinite(values).all()):
                return values  # every read's value came from the trace itself
        g = group.columns
        buffers = g.buffer[positions]
        for b in np.unique(buffers):
            sel = buffers == b
            if self.index.trace.buffers[int(b)].space == GLOBAL:
                got = self._global_reads(int(b), g.index[positions[sel]])
            else:
                got = self._local_reads(group, int(b), positions[sel])
            if got is not None:
                values[sel] = np.where(np.isfinite(values[sel]), values[sel], got)
        return values

    def _global_reads(self, buffer: int, index: np.ndarray) -> np.ndarray | None:
        """The run's values of these elements of a global buffer (NaN outside it)."""
        flat = self._flat(buffer)
        if flat is None:
            return None
        inside = (index >= 0) & (index < flat.size)
        got = np.full(index.size, np.nan)
        got[inside] = flat[index[inside]]
        return got

    def _local_reads(self, group: GroupSteps, buffer: int, positions: np.ndarray) -> np.ndarray:
        """The values these reads of a local array returned: what the last write of the
        element before each read copied there."""
        g = group.columns
        write_pos = group.writes(self.index.grids[buffer])
        write_values = self._copied_values(group.by_step[write_pos])
        big = np.int64(group.by_step.size + 1)
        write_key = g.index[write_pos] * big + write_pos
        order = np.argsort(write_key)
        write_key, write_values = write_key[order], write_values[order]
        read_element = g.index[positions]
        at = np.searchsorted(write_key, read_element * big + positions) - 1
        found = (at >= 0) & (write_key[np.maximum(at, 0)] // big == read_element)
        got = np.full(read_element.size, np.nan)
        got[found] = write_values[at[found]]
        return got


def _last_writes(group: GroupSteps, pos: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Of writes in step order (``pos``), the last of each element inside an array of
    ``size`` elements (a write wider than one element, such as a vstore3, is the write of
    each it covers), in step order: their positions and the element each wrote."""
    element, which = group.columns.elements(pos)
    pos = pos[which]
    ok = (element >= 0) & (element < size)
    last = np.full(size, -1, dtype=np.int64)
    last[element[ok]] = np.nonzero(ok)[0]  # the latest write of each element wins
    keep = np.sort(last[last >= 0])
    return pos[keep], element[keep]
