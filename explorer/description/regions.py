"""Which elements of a buffer a launch promises to write: all of them, none, or a region
written as a numpy-style subscript over the buffer's shape as a person sees it (rows first),
e.g. ``"[1:-1, 1:-1]"`` for a stencil's interior or ``"[0]"`` for a first row.

Only integers, slices (``start:stop:step``, each part optional) and commas: no names, no
expressions, so a region means the same at every size and reads like the numpy it is.
"""

from __future__ import annotations

import re

import numpy as np

ALL = "all"
NOTHING = "none"

_INDEX = re.compile(r"^[+-]?\d+$")

Subscript = tuple[slice | int, ...]


class RegionError(ValueError):
    """A region that is not a subscript of the buffer; the message says what is wrong."""


def parse_region(text: str, dims: int) -> Subscript:
    """The subscript ``text`` writes, for a buffer of ``dims`` dimensions (``()`` for "all").
    Raises :class:`RegionError` naming what is wrong."""
    if text.strip() == ALL:
        return ()
    body = text.strip()
    if not (body.startswith("[") and body.endswith("]")):
        raise RegionError(
            f'{text!r} is not "all", "none" or a subscript in brackets such as "[1:-1, 1:-1]"'
        )
    parts = [p.strip() for p in body[1:-1].split(",")]
    if parts and parts[-1] == "" and len(parts) > 1:  # a trailing comma, as numpy allows
        parts.pop()
    if not parts or any(p == "" for p in parts):
        raise RegionError(f"{text!r} has an empty subscript")
    if len(parts) > dims:
        raise RegionError(
            f"{text!r} has {len(parts)} subscripts for a buffer of {dims} "
            f"dimension{'s' if dims > 1 else ''}"
        )
    return tuple(_part(p, text) for p in parts)


def _part(part: str, text: str) -> slice | int:
    if _INDEX.match(part):
        return int(part)
    pieces = [p.strip() for p in part.split(":")]
    if len(pieces) not in (2, 3) or not all(p == "" or _INDEX.match(p) for p in pieces):
        raise RegionError(
            f"{text!r}: {part!r} is neither an integer nor a slice start:stop:step of integers"
        )
    start, stop, *rest = (int(p) if p else None for p in pieces)
    step = rest[0] if rest else None
    if step == 0:
        raise RegionError(f"{text!r}: {part!r} has a step of 0")
    return slice(start, stop, step)


def checked_region(text: str, shape: tuple[int, ...]) -> Subscript:
    """The subscript ``text`` writes over an array of ``shape`` (rows first), checked without
    making the array. Raises :class:`RegionError` for an index outside the shape."""
    subscript = parse_region(text, len(shape))
    for axis, part in enumerate(subscript):
        if isinstance(part, int) and not -shape[axis] <= part < shape[axis]:
            raise RegionError(
                f"{text!r}: index {part} is outside dimension {axis} of the buffer's shape "
                f"{' × '.join(map(str, shape))}"
            )
    return subscript


def region_mask(text: str, shape: tuple[int, ...]) -> np.ndarray:
    """True for each element of an array of ``shape`` (rows first) the region holds.
    Raises :class:`RegionError` for an index outside the shape."""
    mask = np.zeros(shape, dtype=bool)
    mask[checked_region(text, shape)] = True
    return mask
