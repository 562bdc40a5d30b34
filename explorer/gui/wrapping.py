"""1-D buffers drawn as blocks: a vector of a thousand elements is wrapped into rows (one a
work-group's local size, else 32 elements a row), so it reads as a block of cells instead of a
strip one or two pixels high. Only the drawing wraps: the trace, the boxes and the element
numbers stay those of the buffer."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from explorer.gui.tiling_view import Frame
from explorer.trace.grids import Box, Grid

ROW = 32  # elements a wrapped row holds, unless the local size gives the row
WRAP_ABOVE = 32  # a 1-D buffer longer than this is wrapped
BLANK = np.array([255, 255, 255, 0], dtype=np.uint8)  # after the last element


def wrap_width(grid: Grid, local_size: tuple[int, ...]) -> int:
    """Elements a row of the wrapped block holds (a work-group's part of the vector a row
    where the local size is between 8 and 32), or 0: not wrapped (a matrix, a short one)."""
    if grid.rows != 1 or grid.cols <= WRAP_ABOVE:
        return 0
    lx = int(local_size[0]) if local_size else 0
    return lx if 8 <= lx <= ROW else ROW


def wrapped_rows(length: int, width: int) -> int:
    return -(-length // width)


def wrap_box(box: Box | None, width: int) -> Box | None:
    """A run of elements (0, 1, first, end) as the box of wrapped rows it covers: its own
    columns within one row, whole rows where it spans several."""
    if box is None:
        return None
    first, last = box[2], box[3] - 1
    r0, r1 = first // width, last // width + 1
    if r1 - r0 == 1:
        return r0, r1, first % width, last % width + 1
    return r0, r1, 0, width


def wrap_array(flat: np.ndarray, width: int, fill: object) -> np.ndarray:
    """A 1-D array (or one of cells, (n, k)) as rows of ``width``, padded with ``fill``."""
    rows = wrapped_rows(len(flat), width)
    out = np.empty((rows * width, *flat.shape[1:]), dtype=flat.dtype)
    out[: len(flat)] = flat
    out[len(flat) :] = fill
    return out.reshape(rows, width, *flat.shape[1:])


def wrapped_overview(values: np.ndarray, width: int, most_rows: int = 128) -> np.ndarray:
    """A whole vector's values as its wrapped block (rows averaged where there are more
    than ``most_rows``); NaN after its end."""
    block = wrap_array(np.asarray(values, dtype=np.float64).ravel(), width, np.nan)
    rows = block.shape[0]
    if rows > most_rows:
        edges = np.arange(most_rows) * rows // most_rows
        block = (
            np.add.reduceat(np.nan_to_num(block), edges, axis=0)
            / np.diff(np.r_[edges, rows])[:, None]
        )
    return block


def wrap_frame(frame: Frame, width: int, length: int, local_x: int) -> Frame:
    """A frame of a run of a 1-D buffer (its window is (0, 1, first, end), first a multiple
    of ``width``) as the rows of the wrapped block."""
    c0 = frame.window[2]
    row0 = c0 // width
    pixels = wrap_array(frame.pixels[0], width, BLANK)
    labels = wrap_array(frame.labels[0], width, "") if frame.labels is not None else None
    values = wrap_array(frame.values[0], width, np.nan) if frame.values is not None else None
    rows = pixels.shape[0]
    outlines = [(b, colour, w) for box, colour, w in frame.outlines if (b := wrap_box(box, width))]
    return replace(
        frame,
        shape=(wrapped_rows(length, width), width),
        window=(row0, row0 + rows, 0, width),
        pixels=np.ascontiguousarray(pixels),
        labels=labels,
        values=values,
        tile=(1, 0) if width == local_x else (0, 0),
        outlines=outlines,
        extent=wrap_box(frame.extent, width),
        focus=wrap_box(frame.focus, width),
        wrap=width,
        length=length,
        caption=_wrapped_caption(frame.caption, width),
    )


def _wrapped_caption(caption: str, width: int) -> str:
    """The caption saying how many elements a row, after the window's place and before what
    the step did: a caption cut to its last part keeps the counts ("3 read, 0 written")."""
    if not caption:
        return ""
    where, _, rest = caption.partition(" · ")
    said = f"wrapped, {width} a row"
    return f"{where} · {said} · {rest}" if rest else f"{where} · {said}"
