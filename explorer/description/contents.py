"""Making a launch's buffers from their described contents (numpy only)."""

from __future__ import annotations

import math

import numpy as np

from explorer.description.elements import element_type
from explorer.description.images import load_grey, resample
from explorer.description.launch import (
    BufferParam,
    DescriptionError,
    Fill,
    Iota,
    Made,
    NoInit,
    NpyFile,
    Picture,
    Random,
    Sentinel,
    Values,
)
from explorer.description.text_image import text_mask
from explorer.paths import UserFileError, load_user_array, shown


def make_buffers(buffers: tuple[BufferParam, ...]) -> dict[str, np.ndarray]:
    """Every buffer's initial contents by name, in its host shape (NULL pointers have none).
    Contents made by one function for several buffers (a family's inputs) are made once."""
    made: dict[int, dict[str, np.ndarray]] = {}
    arrays = {}
    for b in buffers:
        if b.null:
            continue
        if isinstance(b.contents, Made):
            key = id(b.contents.make)
            if key not in made:
                made[key] = dict(b.contents.make())
            array = np.asarray(made[key][b.name])
            if array.shape != b.shape or array.dtype != b.element.base:
                raise DescriptionError(
                    f"{b.name}: contents of {array.shape} {array.dtype}, described as "
                    f"{b.shape} {b.element.base}"
                )
            arrays[b.name] = array
        else:
            arrays[b.name] = make_array(b)
    return arrays


def make_array(b: BufferParam) -> np.ndarray:
    """One buffer's initial contents, in its host shape."""
    total = b.count * b.element.lanes
    dtype = b.element.base
    integer = dtype.kind in "iu"
    where = f"parameter {b.name!r}"
    c = b.contents
    if isinstance(c, NoInit):  # the host's record of it, never uploaded
        flat = np.zeros(total, dtype=dtype)
    elif isinstance(c, Sentinel):
        flat = np.full(total, np.nan if dtype.kind == "f" else sentinel_of(dtype), dtype=dtype)
    elif isinstance(c, Fill):
        check_fits(c.value, dtype, f"{where}: value")
        flat = np.full(total, c.value).astype(dtype)
    elif isinstance(c, Iota):
        flat = (c.start + c.step * np.arange(total, dtype=np.float64)).astype(dtype)
    elif isinstance(c, Random):
        flat = _random(c, total, dtype)
    elif isinstance(c, Picture) and b.image is not None:
        # The picture in every channel of every slice: a grey image, slice after slice.
        depth, rows, cols = (1, *b.image.pixels) if b.image.dims == 2 else b.image.pixels
        plane = _picture(c, (rows, cols), rows * cols, dtype, where)
        channels = b.image.channel_count
        flat = np.broadcast_to(
            plane.reshape(1, rows, cols, 1), (depth, rows, cols, channels)
        ).ravel()
    elif isinstance(c, Picture):
        flat = _picture(c, b.shown_shape, total, dtype, where)
    elif isinstance(c, NpyFile):
        try:
            loaded = load_user_array(c.file, "array file")
        except UserFileError as exc:
            raise DescriptionError(f"{where}: {exc}") from None
        if loaded.size != total:
            raise DescriptionError(
                f"{where}: {c.file} holds {loaded.size} values; the buffer has {total}"
            )
        flat = loaded.ravel().astype(dtype)
    elif isinstance(c, Values):
        given = np.asarray(c.values)
        if given.size != total:
            raise DescriptionError(f"{where}: {given.size} values given for {total} elements")
        if isinstance(c.values, tuple):  # numbers written out: through float64 or int64
            for v in c.values:
                check_fits(v, dtype, f"{where}: value")
            given = given.astype(np.int64 if integer else np.float64)
        flat = given.ravel().astype(dtype)
    else:
        raise DescriptionError(f"{where}: contents {c!r} are made with the others")
    return flat.reshape(b.shape)


def sentinel_of(dtype: np.dtype) -> int:
    """The integer an unwritten element of an integer buffer keeps."""
    return int(np.iinfo(dtype).min)


def _random(c: Random, total: int, dtype: np.dtype) -> np.ndarray:
    rng = np.random.default_rng(c.seed)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        low = int(c.low) if c.low is not None else 0
        high = int(c.high) if c.high is not None else min(100, int(info.max) + 1)
        return rng.integers(low, high, size=total, dtype=np.int64).astype(dtype)
    low_f = c.low if c.low is not None else -1.0
    high_f = c.high if c.high is not None else 1.0
    drawn = rng.uniform(low_f, high_f, size=total).astype(dtype)
    # [low, high) in the buffer's own type too: rounding to it (a half holds 11 bits) may
    # reach ``high`` itself, which is then the value just below it.
    below = np.nextafter(dtype.type(high_f), dtype.type(low_f))
    return np.where(drawn >= dtype.type(high_f), below, drawn).astype(dtype)


def _picture(
    c: Picture, shown: tuple[int, ...], total: int, dtype: np.dtype, where: str
) -> np.ndarray:
    rows, cols = shown if len(shown) == 2 else (1, total)
    if rows * cols != total:
        raise DescriptionError(
            f"{where}: a picture of {rows}×{cols} does not fill {total} elements"
        )
    if c.file:
        picture = resample(load_grey(c.file), rows, cols)
    else:
        picture = np.where(text_mask(c.text, rows, cols), 0.0, 1.0)
    if dtype.kind in "iu":
        return np.rint(picture * 255.0).astype(dtype).ravel()
    return picture.astype(dtype).ravel()


def scalar_array(type_name: str, values: tuple[float, ...], name: str = "") -> np.ndarray:
    """A scalar argument's bytes as numpy holds them: one element, a vector's lanes (one
    value fills every lane; a 3-vector is padded to four), or, for several values of a scalar
    type, the bytes of a struct passed by value (``.sim`` files). A value its type cannot
    hold is refused, naming the parameter ``name``."""
    et = element_type(type_name)
    what = f"parameter {name!r}: value" if name else "value"
    listed = list(values)
    if et.width == 1 and len(listed) > 1:
        return _numbers(listed, et.base, what)
    if len(listed) == 1:
        listed = listed * et.width
    if len(listed) != et.width:
        raise DescriptionError(f"{len(listed)} values for a {type_name}")
    listed += [0] * (et.lanes - et.width)
    return _numbers(listed, et.base, what)


def _numbers(values: list[float], base: np.dtype, what: str) -> np.ndarray:
    """``values`` in ``base``: integers that fit an integer type exactly (float64 holds
    only 53 bits: a ``ulong`` of 2**64 - 1 would not survive it), the rest through float64."""
    for v in values:
        check_fits(v, base, what)
    if base.kind in "iu" and all(type(v) is int for v in values):
        return np.array(values, dtype=base)
    return np.array(values, dtype=np.float64).astype(base)


def check_fits(value: float, base: np.dtype, what: str) -> None:
    """Refuse a ``value`` that ``base`` cannot hold: stored, an integer would wrap (NaN or
    infinity one would become its type's smallest) and a float beyond its type's largest
    would become infinite, values nobody wrote. NaN and infinity suit a float type."""
    if base.kind in "iu":
        limits = np.iinfo(base)
        fits = (type(value) is int or math.isfinite(value)) and limits.min <= value <= limits.max
        span = f"{limits.min} to {limits.max}"
    else:
        largest = float(np.finfo(base).max)
        fits = (type(value) is not int and not math.isfinite(value)) or -largest <= value <= largest
        span = f"{-largest:g} to {largest:g}"
    if not fits:
        raise DescriptionError(f"{what} {shown(str(value))} does not fit {base.name} ({span})")
