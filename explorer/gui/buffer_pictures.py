"""Each buffer's picture at one step, composed in numpy for its :class:`FocusCanvas`: the
window that follows the group, the values in its cells (local memory: what was copied in;
the output: its tile forming), this step's reads and writes over them, the watched
work-item's accesses, a finding's marks, the boxes and the caption.

Everything drawn is a selection of the recorded trace (see ``explorer.trace.playback``);
values come from the run's own arrays where the trace recorded none.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from explorer.gui.canvas import rgba
from explorer.gui.cell_colours import (
    BOTH_C,
    DIFF_OUTLINE,
    DOUBTFUL_C,
    EMPTY,
    EXPLAINED_OUTLINE,
    HOVER_C,
    MARK_C,
    MISSING_OUTLINE,
    NEEDED_C,
    OFFENDING_C,
    PENDING_C,
    READ_C,
    STEP_OUTLINE,
    WHITE,
    WRITE_C,
    WRITE_OUTLINE,
    WRITTEN_C,
    box_mask,
    finite_top,
    hues,
    mix,
    tint,
    value_colours,
)
from explorer.gui.tiling_view import (
    ROOM_CELL,
    ROOM_WIDE_CELL,
    Frame,
    heat_colours,
    value_label,
)
from explorer.gui.wrapping import wrap_frame, wrap_width, wrapped_overview, wrapped_rows
from explorer.trace.columns import spread
from explorer.trace.explain_marks import ExplainMarks
from explorer.trace.grids import Box, Grid
from explorer.trace.playback import Playback
from explorer.trace.recorded import GLOBAL, LOCAL
from explorer.trace.trace_index import READS, WRITES, Accesses

MARGIN = 1  # elements of context either side of the tile in a zoom window
DIFF_BOXES = 256  # cells boxed as differing from the reference, at most, per buffer
MISSING_BOXES = 256  # cells boxed as needed but never arrived, at most, per buffer
# How an explained element's inputs are drawn: kind, colour, strength of the tint.
EXPLAINED = (
    ("needed", NEEDED_C, 0.6),
    ("doubtful", DOUBTFUL_C, 0.7),
    ("offending", OFFENDING_C, 0.9),
)
STRIP = 48  # elements a window shows of a one-row buffer
WRAPPED_ROWS = 16  # rows a window shows of a wrapped one
# How cells are coloured, in the order the "Colour cells by" command cycles through them.
COLOURINGS = ("step", "value", "who")
COLOURING_TEXT = {
    "step": "cells: this step's reads and writes over the values",
    "value": "cells: by value only (the values the trace recorded where it has them)",
    "who": "cells: by the work-item of the group that last touched them (one hue each)",
}
Outline = tuple[Box, str, float]


@dataclass(frozen=True)
class StepScene:
    """What every buffer's picture of one step shares: records with the columns a frame
    reads of them, read once for every buffer."""

    step: int
    records: Accesses  # the group's records at this step
    watched_now: Accesses | None  # the watched work-item's records at this step
    watched_line: Accesses | None  # …at every pass of this step's line in this phase
    marked: Accesses | None  # a finding's work-items' records in this phase
    marked_elements: dict[str, set[int]]  # a finding's elements, by buffer name
    # this step's records where a work-item first parts from the reference (a trace diff)
    differing: np.ndarray | None = None


def step_scene(pb: Playback) -> StepScene:
    """The scene of the cursor's step (the cursor's group has steps)."""
    cursor, index = pb.cursor, pb.index
    group = cursor.group_steps
    assert group is not None
    who = cursor.watched
    now, line = group.work_item_step(who, cursor.step) if who is not None else (None, None)

    def read(some: np.ndarray | None) -> Accesses | None:
        return index.accesses(some) if some is not None else None

    return StepScene(
        cursor.step,
        index.accesses(group.step_records(cursor.step)),
        read(now),
        read(line),
        read(cursor.marked_records()),
        cursor.marked_elements,
        cursor.differing_now(),
    )


@dataclass
class Layer:
    """A buffer's window before this step's accesses are drawn over it."""

    pixels: np.ndarray
    values: np.ndarray | None  # the value each cell shows (NaN: none)
    hidden: np.ndarray | None = None  # cells of the output whose values are not shown yet
    heat: bool = False  # the values are loads per element
    outlines: list[Outline] = field(default_factory=list)
    # the group's sums of the output not yet written (in registers), all of them: the cells
    # the window shows are only some where it is narrower than the tile
    forming: int = 0


class BufferPictures:
    """Makes each buffer's frame for a step; keeps what stays the same from step to step
    (the scale of each buffer's values, the overviews, the cell labels)."""

    def __init__(self) -> None:
        self.heat_mode = False  # cells show global loads per element
        self.colouring = "step"  # one of COLOURINGS
        self._tops: dict[int, float] = {}
        self._overviews: dict[tuple[int, bool], np.ndarray] = {}
        self._label_cache: dict[int, tuple[object, np.ndarray]] = {}
        # The most rows and columns a buffer's window may show (the room view: cells large
        # enough for their values to read), by buffer.
        self.limits: dict[int, tuple[int, int]] = {}
        # The desk's wrapped vectors: (rows, elements a row) their canvases hold at DESK_CELL
        # pixels a cell, so a vector reads as a block there too, never a strip.
        self.desk_wraps: dict[int, tuple[int, int]] = {}
        # An element explained: what flowed into it, drawn over every buffer at every step.
        self.explained: ExplainMarks | None = None

    def forget(self) -> None:
        """Another trace, or other values: nothing kept applies."""
        self._tops, self._overviews, self._label_cache = {}, {}, {}

    def frame(self, pb: Playback, grid: Grid, scene: StepScene, title: str) -> Frame:
        """The buffer's frame at the scene's step (a long 1-D buffer: wrapped)."""
        wrap = wrap_width(grid, pb.trace.local_size)
        if wrap and grid.buffer in self.limits:  # the room view: as many a row as read
            wrap = max(1, min(wrap, self.limits[grid.buffer][1] * ROOM_CELL // ROOM_WIDE_CELL))
        elif wrap and grid.buffer in self.desk_wraps:  # the desk: as many a row as fit
            wrap = max(1, min(wrap, self.desk_wraps[grid.buffer][1]))
        window = (
            self._wrapped_window(pb, grid, scene.step, wrap)
            if wrap
            else self.window(pb, grid, scene.step)
        )
        now = scene.records
        on_buffer = now.of(grid.buffer)
        mine = now.records[on_buffer]
        # Every element an access covers (a vload4 four, a vstore3 three), not its first.
        reads, writes = pb.index.window_masks(grid, now, window)
        if grid.space == LOCAL:
            layer = self._local_layer(pb, grid, scene.step, window, reads | writes, reads & ~writes)
        elif self.heat_mode:
            layer = self._heat_layer(pb, grid, window)
        else:
            layer = self._value_layer(pb, grid, scene.step, window)
        pixels = self._coloured(pb, grid, scene.step, window, layer, reads, writes)
        self._draw_watched(pb, grid, scene, window, pixels)
        self._draw_marks(pb, grid, scene, window, pixels)
        outlines = layer.outlines + self._step_outline(pb, grid, scene.step, mine, reads | writes)
        outlines += _differing_outlines(pb, grid, scene)
        outlines += self._draw_explained(pb, grid, scene.step, window, pixels)
        labels, key = self._labels(grid, window, layer)
        lx, ly = (list(pb.trace.local_size) + [1, 1])[:2]
        overview = self._overview(pb, grid, wrap) if grid.space == GLOBAL else None
        overview_key: object = (grid.buffer, self.heat_mode, len(self._overviews))
        if overview is not None and self.explained is not None and not wrap:
            overview = _explained_overview(grid, overview, self.explained)
            overview_key = (overview_key, id(self.explained))
        group = pb.cursor.group_steps
        assert group is not None
        frame = Frame(
            title=title,
            shape=(grid.rows, grid.cols),
            window=window,
            pixels=pixels,
            tile=(ly, lx) if grid.rows > 1 else (1, lx),
            labels=labels,
            labels_key=key,
            overview=overview,
            overview_key=overview_key,
            outlines=outlines,
            caption=self._caption(pb, grid, mine, window, layer),
            values=layer.values,
            extent=group.extent(grid)[0],
            focus=group.focus(grid, scene.step),
        )
        return wrap_frame(frame, wrap, grid.cols, lx) if wrap else frame

    def window(self, pb: Playback, grid: Grid, step: int) -> Box:
        """The elements the zoom window shows: the group's tile and one element around it
        (a one-row buffer: a strip), following the group a tile at a time; the output's
        window stays on the group's tile of it; a small local array whole. The room view
        shows no more cells than read at its cell size, but a matrix's tile always whole."""
        lx, ly = (list(pb.trace.local_size) + [1, 1])[:2]
        if grid.rows > 1:
            zr, zc = min(grid.rows, ly + 2 * MARGIN), min(grid.cols, lx + 2 * MARGIN)
            tr, tc = ly, lx
        else:
            zr, zc = 1, min(grid.cols, STRIP)
            tr, tc = 1, lx
        if grid.space == LOCAL and grid.rows <= 40 and grid.cols <= 40:
            zr, zc = grid.rows, grid.cols
        if grid.buffer in self.limits:
            most_r, most_c = self.limits[grid.buffer]
            zr, zc = max(1, min(zr, most_r)), max(1, min(zc, most_c))
            if grid.rows > 1:  # a matrix: the group's tile whole, in smaller cells if need be
                zr, zc = max(zr, min(tr, grid.rows)), max(zc, min(tc, grid.cols))
            if grid.space == LOCAL:
                zr, zc = min(grid.rows, most_r), min(grid.cols, most_c)
        group = pb.cursor.group_steps
        assert group is not None
        box = group.focus(grid, step)
        if grid.space == GLOBAL and pb.trace.buffers[grid.buffer].is_input is False:
            written = group.extent(grid)[1]
            box = written or box
        if box is None:
            return 0, zr, 0, zc
        r0 = _snap(box[0], tr, zr, grid.rows)
        c0 = _snap(box[2], tc, zc, grid.cols)
        return r0, r0 + zr, c0, c0 + zc

    def _wrapped_window(self, pb: Playback, grid: Grid, step: int, wrap: int) -> Box:
        """The run of a 1-D buffer the window shows wrapped: whole rows, a page of them
        holding what the group touches now."""
        total = wrapped_rows(grid.cols, wrap)
        rows = min(total, WRAPPED_ROWS)
        if grid.buffer in self.limits:  # the room view: cells wide enough for -.4
            rows = min(rows, max(1, self.limits[grid.buffer][0] * ROOM_CELL // ROOM_WIDE_CELL))
        elif grid.buffer in self.desk_wraps:
            rows = min(rows, max(1, self.desk_wraps[grid.buffer][0]))
        group = pb.cursor.group_steps
        assert group is not None
        box = group.focus(grid, step)
        row = box[2] // wrap if box is not None else 0
        first = _snap(row, rows, rows, total)
        return 0, 1, first * wrap, min((first + rows) * wrap, grid.cols)

    # -- what the cells hold -----------------------------------------------------------------
    def _local_layer(
        self,
        pb: Playback,
        grid: Grid,
        step: int,
        window: Box,
        touched: np.ndarray,
        read_only: np.ndarray,
    ) -> Layer:
        """Local memory: the values copied in (faded when written in an earlier phase and
        not touched now), grey where a value was written but is unknown; a read of a cell
        nothing wrote yet marked."""
        group = pb.cursor.group_steps
        assert group is not None
        value, writer, fresh, _source = pb.values.local_contents(group, grid, step)
        r0, r1, c0, c1 = window
        vals, w = value[r0:r1, c0:c1], writer[r0:r1, c0:c1]
        top = self._top(grid, pb.values.buffer(grid)) or finite_top(value)
        pixels = value_colours(vals, top)
        pixels[(w >= 0) & ~np.isfinite(vals)] = WRITTEN_C
        pixels[w < 0] = EMPTY
        stale = ~(touched | fresh[r0:r1, c0:c1])
        pixels[stale] = mix(pixels[stale], WHITE, 0.55)
        pixels[read_only & (w < 0)] = MARK_C  # read before any write
        return Layer(pixels, np.where(w >= 0, vals, np.nan))

    def _heat_layer(self, pb: Playback, grid: Grid, window: Box) -> Layer:
        """Global loads per element over every traced group, on the heat map's scale."""
        r0, r1, c0, c1 = window
        counts = pb.index.element_heat(grid)[r0:r1, c0:c1]
        return Layer(heat_colours(counts), counts.astype(np.float64), heat=True)

    def _value_layer(self, pb: Playback, grid: Grid, step: int, window: Box) -> Layer:
        """A global buffer's values from the run; the output's tile of the group as it
        forms."""
        r0, r1, c0, c1 = window
        values = pb.values.buffer(grid)
        shown = values[r0:r1, c0:c1] if values is not None else None
        pixels = (
            value_colours(shown, self._top(grid, values))
            if shown is not None
            else np.tile(EMPTY, (r1 - r0, c1 - c0, 1))
        )
        layer = Layer(pixels, shown)
        group = pb.cursor.group_steps
        assert group is not None
        _touched, written_box = group.extent(grid)
        if written_box is not None and not pb.trace.buffers[grid.buffer].is_input:
            self._output_tile(pb, grid, step, window, written_box, layer)
        return layer

    def _output_tile(
        self, pb: Playback, grid: Grid, step: int, window: Box, tile: Box, layer: Layer
    ) -> None:
        """The group's tile of the output: marked from the start, its values appear as the
        group writes them; elsewhere the other groups' results, faded."""
        group = pb.cursor.group_steps
        assert group is not None
        values = pb.values.buffer(grid)
        pixels = layer.pixels
        layer.outlines.append((tile, WRITE_OUTLINE, 3.0))
        inside = box_mask(tile, window)
        hidden = inside & ~group.written_before(grid, step, window)
        pixels[hidden] = PENDING_C
        partial = pb.values.partial_sums(group, grid, step, window)
        if partial is not None and layer.values is not None:
            # Accumulating: the sums so far of the products each work-item formed from
            # the values it read; the IOU forms in C as k advances.
            forming = hidden & np.isfinite(partial)
            shown = value_colours(partial, self._top(grid, values))
            pixels[forming] = mix(shown[forming], PENDING_C, 0.35)
            layer.values = np.where(forming, partial, layer.values)
            layer.forming = _forming_in(pb, grid, step, tile)
            hidden = hidden & ~forming
        stored = pb.values.written_values(group, grid, step, window)
        if stored is not None and layer.values is not None:
            # What the group's writes stored so far, as recorded: a sum that is
            # accumulated in the output itself shows as it forms.
            known = inside & np.isfinite(stored)
            shown = value_colours(stored, self._top(grid, values))
            pixels[known] = shown[known]
            layer.values = np.where(known, stored, layer.values)
        others = ~inside
        pixels[others] = mix(pixels[others], WHITE, 0.5)
        layer.hidden = hidden

    # -- drawn over them ---------------------------------------------------------------------
    def _coloured(
        self,
        pb: Playback,
        grid: Grid,
        step: int,
        window: Box,
        layer: Layer,
        reads: np.ndarray,
        writes: np.ndarray,
    ) -> np.ndarray:
        """The cells as the colouring asks: by value alone, by who last touched them, or
        (by step) this step's reads and writes tinted over the layer."""
        pixels = layer.pixels
        if self.colouring == "value" and layer.values is not None and not layer.heat:
            top = self._top(grid, pb.values.buffer(grid)) or finite_top(layer.values)
            pixels = value_colours(layer.values, top)
            pixels[~np.isfinite(layer.values)] = EMPTY
        elif self.colouring == "who":
            group = pb.cursor.group_steps
            assert group is not None
            who = group.touching_window(grid, step, window)
            pixels = hues(who, int(np.prod(pb.trace.local_size)))
        elif not self.heat_mode or grid.space == LOCAL:
            tint(pixels, reads & ~writes, READ_C, 0.6)
            tint(pixels, writes & ~reads, WRITE_C, 0.6)
            tint(pixels, reads & writes, BOTH_C, 0.6)
        return pixels

    def _draw_watched(
        self, pb: Playback, grid: Grid, scene: StepScene, window: Box, pixels: np.ndarray
    ) -> None:
        """The watched work-item's accesses of this line in this phase, this pass's
        strongest."""
        if scene.watched_line is None or scene.watched_now is None:
            return
        lr, lw = pb.index.window_masks(grid, scene.watched_line, window)
        tint(pixels, lr | lw, HOVER_C, 0.3)
        nr, nw = pb.index.window_masks(grid, scene.watched_now, window)
        tint(pixels, nr | nw, HOVER_C, 0.8)

    def _draw_marks(
        self, pb: Playback, grid: Grid, scene: StepScene, window: Box, pixels: np.ndarray
    ) -> None:
        """A selected finding's work-items' accesses in this phase, and its elements."""
        if scene.marked is not None:
            mr, mw = pb.index.window_masks(grid, scene.marked, window)
            pixels[mr | mw] = MARK_C
        r0, r1, c0, c1 = window
        for element in scene.marked_elements.get(grid.name, ()):
            rows, cols = grid.element_rc(np.array([element]))
            er, ec = int(rows[0]) - r0, int(cols[0]) - c0
            if 0 <= er < r1 - r0 and 0 <= ec < c1 - c0:
                pixels[er, ec] = MARK_C

    def _draw_explained(
        self, pb: Playback, grid: Grid, step: int, window: Box, pixels: np.ndarray
    ) -> list[Outline]:
        """An explained element's inflow: in a global buffer its inputs by kind, the needed
        ones that never arrived boxed, the element itself boxed; in local memory the
        elements its work-item reads in this step's phase (those that carried an input that
        should not be there in the offending colour)."""
        marks = self.explained
        if marks is None:
            return []
        b = grid.buffer
        if grid.space == LOCAL:
            reads = marks.reads[marks.reads[:, 0] == b]
            if reads.size and pb.steps:
                now = reads[pb.index.phase[reads[:, 2]] == pb.steps[step].phase]
                for kind, colour, amount in EXPLAINED:
                    if kind != "doubtful":
                        bad = int(kind == "offending")
                        cells = _window_mask(grid, now[now[:, 3] == bad, 1], window)
                        tint(pixels, cells, colour, amount)
            return []
        for kind, colour, amount in EXPLAINED:
            tint(pixels, _window_mask(grid, marks.of(kind, b), window), colour, amount)
        r0, _r1, c0, _c1 = window
        lacking = np.argwhere(_window_mask(grid, marks.of("missing", b), window))[:MISSING_BOXES]
        outlines: list[Outline] = [
            ((r0 + int(r), r0 + int(r) + 1, c0 + int(c), c0 + int(c) + 1), MISSING_OUTLINE, 2.0)
            for r, c in lacking
        ]
        if marks.output is not None and marks.output[0] == b:
            rows, cols = grid.element_rc(np.array([marks.output[1]]))
            r, c = int(rows[0]), int(cols[0])
            outlines.append(((r, r + 1, c, c + 1), EXPLAINED_OUTLINE, 4.0))
        return outlines

    def _step_outline(
        self, pb: Playback, grid: Grid, step: int, mine: np.ndarray, touched: np.ndarray
    ) -> list[Outline]:
        """The box of what the group touches in this buffer at this step."""
        group = pb.cursor.group_steps
        assert group is not None
        box = group.focus(grid, step)
        if touched.any() or (box is not None and grid.space == GLOBAL):
            drawn = pb.index.box(grid, mine)
            if drawn is not None:
                return [(drawn, STEP_OUTLINE, 3.0)]
        return []

    def _labels(self, grid: Grid, window: Box, layer: Layer) -> tuple[np.ndarray | None, object]:
        """The text of each cell (its value; none where hidden), kept while it stays the
        same."""
        values, hidden = layer.values, layer.hidden
        if values is None:
            return None, None
        shown = values if hidden is None else np.where(hidden, np.nan, values)
        key = (grid.buffer, window, layer.heat, shown.tobytes())
        cached = self._label_cache.get(grid.buffer)
        if cached is not None and cached[0] == key:
            return cached[1], key
        labels = np.array([value_label(float(v)) for v in shown.ravel()], dtype=object).reshape(
            shown.shape
        )
        self._label_cache[grid.buffer] = (key, labels)
        return labels, key

    def _caption(
        self, pb: Playback, grid: Grid, mine: np.ndarray, window: Box, layer: Layer
    ) -> str:
        """The window's place in the buffer, and what this step read and wrote in it (the
        heat map: the most loads of an element); the output's sums that show while nothing
        is written yet are named as such, so the words and the cells agree."""
        r0, r1, c0, c1 = window
        where = f"[{r0}:{r1}][{c0}:{c1}]" if grid.rows > 1 else f"[{c0}:{c1}]"
        index = pb.index
        if self.heat_mode and grid.space == GLOBAL:
            heat = index.element_heat(grid)
            return f"{where} · up to {int(heat.max())} loads per element"
        ops = index.op[mine]

        def covered(records: np.ndarray) -> int:  # the elements these accesses cover
            return int(np.unique(spread(index.index[records], index.last[records])[0]).size)

        read, written = covered(mine[READS[ops]]), covered(mine[WRITES[ops]])
        sums = "sum" if layer.forming == 1 else "sums"
        forming = f" · {layer.forming} {sums} so far, in registers" if layer.forming else ""
        return f"{where} · {read} read, {written} written{forming}"

    def _top(self, grid: Grid, values: np.ndarray | None) -> float:
        if grid.buffer not in self._tops:
            self._tops[grid.buffer] = finite_top(values) if values is not None else 0.0
        return self._tops[grid.buffer]

    def _overview(self, pb: Playback, grid: Grid, wrap: int = 0) -> np.ndarray | None:
        """The whole buffer, binned: its values, or in the heat map its loads (a long 1-D
        buffer as its wrapped block)."""
        values = pb.values.buffer(grid)
        key = (grid.buffer, self.heat_mode)
        if key not in self._overviews:
            data = pb.index.element_heat(grid) if self.heat_mode else values
            if data is None:
                return None
            mean = wrapped_overview(data, wrap) if wrap else grid.cell_means(data)
            self._overviews[key] = (
                heat_colours(mean)
                if self.heat_mode
                else value_colours(mean, self._top(grid, values))
            )
        return self._overviews[key]


def _differing_outlines(pb: Playback, grid: Grid, scene: StepScene) -> list[Outline]:
    """A box around each cell of the buffer that a work-item's first access differing from
    the reference touches at this step (a trace diff's marks)."""
    if scene.differing is None or scene.differing.size == 0:
        return []
    index = pb.index
    recs = scene.differing[(index.buffer[scene.differing] == grid.buffer)]
    recs = recs[~index.oob[recs]]
    rows, cols = grid.element_rc(index.index[recs])
    cells = sorted(set(zip(rows.tolist(), cols.tolist(), strict=True)))[:DIFF_BOXES]
    return [((r, r + 1, c, c + 1), DIFF_OUTLINE, 4.0) for r, c in cells]


def _forming_in(pb: Playback, grid: Grid, step: int, tile: Box) -> int:
    """How many of the group's sums of the output are formed in registers and not yet
    written at this step: counted over the group's whole tile, whatever the window shows."""
    group = pb.cursor.group_steps
    assert group is not None
    partial = pb.values.partial_sums(group, grid, step, tile)
    if partial is None:
        return 0
    return int((np.isfinite(partial) & ~group.written_before(grid, step, tile)).sum())


def _window_mask(grid: Grid, elements: np.ndarray, window: Box) -> np.ndarray:
    """Which cells of a window hold these elements (storage order)."""
    r0, r1, c0, c1 = window
    mask = np.zeros((r1 - r0, c1 - c0), dtype=bool)
    if elements.size:
        rows, cols = grid.element_rc(elements)
        inside = (rows >= r0) & (rows < r1) & (cols >= c0) & (cols < c1)
        mask[rows[inside] - r0, cols[inside] - c0] = True
    return mask


def _explained_overview(grid: Grid, overview: np.ndarray, marks: ExplainMarks) -> np.ndarray:
    """The overview with the cells holding an explained element's inputs coloured by kind
    (a cell of several elements takes the worst kind among them)."""
    out = overview.copy()
    size = grid.cell_rows * grid.cell_cols
    if out.shape[:2] != (grid.cell_rows, grid.cell_cols):
        return overview
    for kind, colour, amount in (("missing", rgba(MISSING_OUTLINE), 0.6), *EXPLAINED):
        cells = grid.cell_of(marks.of(kind, grid.buffer))
        mask = np.zeros(size, dtype=bool)
        mask[cells[cells >= 0]] = True
        tint(out, mask.reshape(grid.cell_rows, grid.cell_cols), colour, amount)
    return out


def _snap(start: int, tile: int, size: int, total: int) -> int:
    """The window's first row (or column): the tile holding ``start``, with a margin of
    context either side, inside the buffer; the window moves a tile at a time."""
    if size >= total:
        return 0
    margin = (size - tile) // 2 if size > tile else 0
    origin = (start // max(tile, 1)) * max(tile, 1) - margin
    return max(0, min(origin, total - size))
