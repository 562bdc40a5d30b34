"""The execution view's colours, and the numpy that paints cells with them: values from white
to grey, this step's reads and writes tinted over them, one hue per work-item."""

from __future__ import annotations

import colorsys

import numpy as np

from explorer.gui.canvas import rgba
from explorer.trace.grids import Box

EMPTY = rgba("#ecf0f1")
READ_C = rgba("#3498db")
WRITE_C = rgba("#e67e22")
BOTH_C = rgba("#8e44ad")
HOVER_C = rgba("#16a085")
MARK_C = rgba("#e74c3c")
WRITTEN_C = rgba("#d6dbdf")  # written, value unknown
PENDING_C = rgba("#fdf2e9")  # the group's output tile before the group writes it
VALUE_LOW, VALUE_HIGH = "#ffffff", "#85929e"
STEP_OUTLINE, WRITE_OUTLINE = "#c0392b", "#e67e22"
DIFF_OUTLINE = "#e600ac"  # a work-item's first access that differs from the reference's
# An explained element ("Why is this element wrong"): its inputs that flowed in and are
# needed, those that should not be there, those credited only by the over-approximation,
# the needed ones that never arrived (boxed) and the element itself (boxed).
NEEDED_C = rgba("#27ae60")
OFFENDING_C = rgba("#c2185b")
DOUBTFUL_C = rgba("#f4d03f")
MISSING_OUTLINE, EXPLAINED_OUTLINE = "#6c3483", "#17202a"
VALUE_RAMP = (
    rgba(VALUE_LOW).astype(np.float64)
    + (rgba(VALUE_HIGH).astype(np.float64) - rgba(VALUE_LOW).astype(np.float64))
    * np.linspace(0, 1, 256)[:, None]
).astype(np.uint8)
WHITE = rgba("#ffffff")


def gradient(values: np.ndarray, lo: str = "#f4f6f7", hi: str = "#1b4f72") -> np.ndarray:
    """From ``lo`` for 0 to ``hi`` for the largest value."""
    a, b = rgba(lo).astype(np.float64), rgba(hi).astype(np.float64)
    top = float(values.max()) if values.size else 0.0
    t = values / top if top > 0 else np.zeros_like(values, dtype=np.float64)
    return (a + (b - a) * t[..., None]).astype(np.uint8)


def hues(ids: np.ndarray, count: int) -> np.ndarray:
    """One hue per id of ``count`` (golden-ratio steps round the wheel); -1: empty."""
    table = np.array(
        [
            [int(255 * v) for v in colorsys.hsv_to_rgb((i * 0.61803) % 1.0, 0.55, 0.95)] + [255]
            for i in range(max(count, 1))
        ],
        dtype=np.uint8,
    )
    out = np.empty(ids.shape + (4,), dtype=np.uint8)
    out[:] = EMPTY
    ok = ids >= 0
    out[ok] = table[ids[ok] % len(table)]
    return out


def value_colours(values: np.ndarray, top: float) -> np.ndarray:
    """White for 0, darker for larger magnitudes; unknown (NaN) values white."""
    t = np.abs(np.nan_to_num(values)) / top if top > 0 else np.zeros(values.shape)
    return VALUE_RAMP[(np.clip(t, 0, 1) * 255).astype(np.intp)]


def finite_top(values: np.ndarray) -> float:
    """The largest magnitude among the finite values (0 without any)."""
    flat = np.asarray(values).ravel()
    if flat.size == 0:
        return 0.0
    hi, lo = float(np.fmax.reduce(flat)), float(np.fmin.reduce(flat))  # NaN skipped
    if np.isfinite(hi) and np.isfinite(lo):
        return max(abs(hi), abs(lo))
    finite = np.abs(flat[np.isfinite(flat)])
    return float(finite.max()) if finite.size else 0.0


def mix(pixels: np.ndarray, colour: np.ndarray, amount: float) -> np.ndarray:
    return (pixels * (1 - amount) + colour * amount).astype(np.uint8)


def tint(pixels: np.ndarray, mask: np.ndarray, colour: np.ndarray, amount: float) -> None:
    if mask.any():
        pixels[mask] = mix(pixels[mask], colour, amount)


def box_mask(box: Box, window: Box) -> np.ndarray:
    """Which elements of a window lie inside a box."""
    r0, r1, c0, c1 = window
    b0, b1, d0, d1 = box
    rows = np.arange(r0, r1)[:, None]
    cols = np.arange(c0, c1)[None, :]
    return (rows >= b0) & (rows < b1) & (cols >= d0) & (cols < d1)
