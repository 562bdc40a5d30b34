"""The one verification routine: output against the float64 reference, NaN-aware."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from explorer.engine.records import Verdict
from explorer.families.base import Reference

# Elements compared at a time: the float64 temporaries of a comparison (the output widened,
# the difference, the allowance, masks) take about 80 bytes an element, so a result is judged
# with memory near one piece of this size, however large it is, and gives the same figures.
CHUNK = 1 << 20


def verify(
    output: np.ndarray, reference: Reference, dtype: np.dtype, ignore: np.ndarray | None = None
) -> Verdict:
    """Compare element-wise, with a tolerance scaled to the reduction length and dtype.

    Integers must match exactly (modulo the 32-bit wrap the device computes in), every bit
    of them where the reference holds integers (float64 cannot tell 2**64 - 1 from 2**64 - 2).
    For floats, an element may differ by ``(terms + 2) · eps · Σ|terms|``: the classical
    bound for summing ``terms`` rounded products, whatever the summation order.
    ``ignore`` (True where an element is not judged) leaves elements out of every figure.
    """
    expected = reference.value
    if output.shape != expected.shape:
        raise ValueError(f"output shape {output.shape} differs from reference {expected.shape}")
    dtype = np.dtype(dtype)
    if dtype.kind in "iub":
        tolerance = "exact (integers)"
        magnitude = None
    else:
        eps = float(np.finfo(dtype).eps)
        tolerance = f"({reference.terms} + 2)·eps·Σ|terms|, eps = {eps:.3g}"
        magnitude = _flat(reference.magnitude, expected.shape)
    got, want = output.reshape(-1), expected.reshape(-1)
    skip = None if ignore is None else _flat(ignore, expected.shape)
    total = _Tally()
    # inf - inf and NaN comparisons are expected here (both are judged, not warned about)
    with np.errstate(invalid="ignore", over="ignore"):
        _compare_all(total, got, want, dtype, reference.terms, magnitude, skip)
    # Relative to the largest reference value: elements near zero (the text of the
    # IOU picture) would otherwise turn rounding noise into huge ratios.
    scale = total.scale
    max_rel = total.max_abs / scale if scale > 0 else total.max_abs
    return Verdict(
        verified=total.bad == 0,
        max_abs_error=total.max_abs,
        max_rel_error=max_rel,
        mismatches=total.bad,
        tolerance=tolerance,
        not_a_number=total.not_a_number,
    )


def _compare_all(
    total: _Tally,
    got: np.ndarray,
    want: np.ndarray,
    dtype: np.dtype,
    terms: int,
    magnitude: np.ndarray | None,
    skip: np.ndarray | None,
) -> None:
    """Every piece of the flat output against the flat reference, one after the other."""
    for start in range(0, got.size, CHUNK):
        part = slice(start, start + CHUNK)
        _compare(
            total,
            got[part],
            want[part],
            dtype,
            terms,
            magnitude if magnitude is None or magnitude.ndim == 0 else magnitude[part],
            None if skip is None else skip[part],
        )


@dataclass
class _Tally:
    """The figures of the pieces compared so far."""

    bad: int = 0
    not_a_number: int = 0
    max_abs: float = 0.0
    scale: float = 0.0  # the largest |reference| that is a number


def _flat(values: np.ndarray | float, shape: tuple[int, ...]) -> np.ndarray:
    """``values`` (one value, or an array of ``shape`` or broadcast to it) flat, or as the
    one value."""
    array = np.asarray(values)
    if array.ndim == 0:
        return array
    if array.shape != shape:
        array = np.broadcast_to(array, shape)
    return array.reshape(-1)


def _compare(
    total: _Tally,
    output: np.ndarray,
    expected: np.ndarray,
    dtype: np.dtype,
    terms: int,
    magnitude: np.ndarray | None,
    ignore: np.ndarray | None,
) -> None:
    """One piece of the comparison, added to ``total``."""
    got = output.astype(np.float64)
    if dtype.kind in "iub":
        exact = expected if expected.dtype.kind in "iub" else expected.astype(np.int64)
        exact = exact.astype(dtype)
        wrapped = exact.astype(np.float64)
        # Integers that differ differ by 1 at least, also where float64 rounds both alike.
        same = output.astype(dtype) == exact
        diff = np.where(same, 0.0, np.maximum(np.abs(got - wrapped), 1.0))
        allowed: np.ndarray | float = 0.0
        expected = wrapped
    else:
        assert magnitude is not None  # floats are given their magnitudes (verify)
        eps = float(np.finfo(dtype).eps)
        allowed = (terms + 2) * eps * magnitude + np.finfo(dtype).tiny
        diff = np.abs(got - expected)
    both_nan = np.isnan(got) & np.isnan(expected)
    # Equal values match: the same infinity too, whose difference is NaN.
    alike = both_nan | (got == expected)
    if ignore is not None:
        alike |= ignore
    diff = np.where(alike, 0.0, diff)
    bad = ~(alike | (diff <= allowed))  # NaN in diff counts as bad (and a NaN allowance)
    total.bad += int(bad.sum())
    total.not_a_number += int((np.isnan(got) & ~np.isnan(expected) & ~alike).sum())
    if diff.size:
        finite = np.where(np.isfinite(diff), diff, np.inf)
        total.max_abs = max(total.max_abs, float(finite.max()))
        # fmax passes over NaN: an all-NaN reference leaves the scale 0 (no relative error)
        total.scale = float(np.fmax(total.scale, np.fmax.reduce(np.abs(expected))))


def error_map(output: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """|output − reference| as float64, NaN where the output is not a number."""
    return np.abs(output.astype(np.float64) - reference.astype(np.float64))
