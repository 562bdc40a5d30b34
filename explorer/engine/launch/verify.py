"""The one verification routine: output against the float64 reference, NaN-aware."""

from __future__ import annotations

import numpy as np

from explorer.engine.records import Verdict
from explorer.families.base import Reference


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
    got = output.astype(np.float64)
    if got.shape != expected.shape:
        raise ValueError(f"output shape {got.shape} differs from reference {expected.shape}")
    dtype = np.dtype(dtype)
    if dtype.kind in "iub":
        exact = expected if expected.dtype.kind in "iub" else expected.astype(np.int64)
        exact = exact.astype(dtype)
        wrapped = exact.astype(np.float64)
        # Integers that differ differ by 1 at least, also where float64 rounds both alike.
        same = output.astype(dtype) == exact
        diff = np.where(same, 0.0, np.maximum(np.abs(got - wrapped), 1.0))
        allowed = np.zeros_like(diff)
        tolerance = "exact (integers)"
        expected = wrapped
    else:
        eps = float(np.finfo(dtype).eps)
        allowed = (reference.terms + 2) * eps * reference.magnitude + np.finfo(dtype).tiny
        diff = np.abs(got - expected)
        tolerance = f"({reference.terms} + 2)·eps·Σ|terms|, eps = {eps:.3g}"
    both_nan = np.isnan(got) & np.isnan(expected)
    # Equal values match: the same infinity too, whose difference is NaN.
    alike = both_nan | (got == expected)
    if ignore is not None:
        alike |= ignore
    diff = np.where(alike, 0.0, diff)
    bad = ~(alike | (diff <= allowed))  # NaN in diff counts as bad (and a NaN allowance)
    finite = np.where(np.isfinite(diff), diff, np.inf)
    max_abs = float(finite.max()) if finite.size else 0.0
    # Relative to the largest reference value: elements near zero (the text of the
    # IOU picture) would otherwise turn rounding noise into huge ratios.
    scale = float(np.nanmax(np.abs(expected))) if expected.size else 0.0
    max_rel = max_abs / scale if scale > 0 else max_abs
    return Verdict(
        verified=not bool(bad.any()),
        max_abs_error=max_abs,
        max_rel_error=max_rel,
        mismatches=int(bad.sum()),
        tolerance=tolerance,
        not_a_number=int((np.isnan(got) & ~np.isnan(expected) & ~alike).sum()),
    )


def error_map(output: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """|output − reference| as float64, NaN where the output is not a number."""
    return np.abs(output.astype(np.float64) - reference.astype(np.float64))
