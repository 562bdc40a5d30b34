"""The verdict of a result judged piece by piece is the verdict of the whole, with memory near
one piece: every figure (mismatches, the largest errors, NaN counts) across piece edges, for
floats and integers, NaN and infinities, elements left out, one allowance or one each."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from explorer.engine.launch import verify as verifying
from explorer.families.base import Reference


def whole(output, reference, dtype, ignore=None):
    """The figures computed over the whole arrays at once, written out independently."""
    with np.errstate(invalid="ignore"):
        return _whole(output, reference, dtype, ignore)


def _whole(output, reference, dtype, ignore):
    dtype = np.dtype(dtype)
    got = output.astype(np.float64)
    expected = reference.value
    if dtype.kind in "iub":
        exact = (expected if expected.dtype.kind in "iub" else expected.astype(np.int64)).astype(
            dtype
        )
        wanted = exact.astype(np.float64)
        diff = np.where(output.astype(dtype) == exact, 0.0, np.maximum(np.abs(got - wanted), 1.0))
        allowed = 0.0
    else:
        wanted = expected.astype(np.float64)
        eps = np.finfo(dtype).eps
        allowed = (reference.terms + 2) * eps * reference.magnitude + np.finfo(dtype).tiny
        diff = np.abs(got - wanted)
    alike = (np.isnan(got) & np.isnan(wanted)) | (got == wanted)
    if ignore is not None:
        alike = alike | ignore
    diff = np.where(alike, 0.0, diff)
    bad = ~(alike | (diff <= allowed))
    max_abs = float(np.where(np.isfinite(diff), diff, np.inf).max())
    numbers = np.abs(wanted)[~np.isnan(wanted)]
    scale = float(numbers.max()) if numbers.size else 0.0
    return (int(bad.sum()), max_abs, max_abs / scale if scale > 0 else max_abs,
            int((np.isnan(got) & ~np.isnan(wanted) & ~alike).sum()))  # fmt: skip


def figures(verdict):
    return (verdict.mismatches, verdict.max_abs_error, verdict.max_rel_error, verdict.not_a_number)


@pytest.mark.parametrize("chunk", [7, 64, 1 << 20])
@pytest.mark.parametrize("kind", ["float32", "int32", "uint8", "int64 given"])
def test_each_figure_is_the_wholes_whatever_the_piece(monkeypatch, chunk, kind):
    monkeypatch.setattr(verifying, "CHUNK", chunk)
    rng = np.random.default_rng(chunk + len(kind))
    n = 1000
    if kind == "float32":
        value = rng.normal(size=(25, 40)) * 100
        output = value.astype(np.float32)
        output.flat[rng.choice(n, 30, replace=False)] += 1.0  # wrong by far more than eps
        output.flat[[3, 500, 999]] = np.nan  # NaN where a number was expected
        value.flat[[10, 640]] = np.nan
        output.flat[[10]] = np.nan  # NaN on both sides: alike
        value.flat[[77]] = np.inf
        output.flat[[77]] = np.inf  # the same infinity: alike
        output.flat[[78]] = np.inf  # an infinity where a number was expected
        reference = Reference(value, np.abs(value), 8)
        dtype = np.float32
    else:
        dtype = np.int32 if kind == "int32" else np.uint8
        exact = rng.integers(0, 200, size=(25, 40)).astype(np.int64)
        if kind == "int32":
            exact.flat[[5, 900]] = 2**31 + 7  # wraps on the device
        output = exact.astype(dtype)
        output.flat[rng.choice(n, 40, replace=False)] += 1
        value = exact if kind == "int64 given" or kind == "int32" else exact.astype(np.float64)
        reference = Reference(value, np.abs(value.astype(np.float64)), 1)
    ignore = np.zeros((25, 40), dtype=bool)
    ignore.flat[rng.choice(n, 50, replace=False)] = True
    for left_out in (None, ignore):
        judged = verifying.verify(output, reference, dtype, left_out)
        expected = whole(output, reference, dtype, left_out)
        np.testing.assert_equal(figures(judged), expected)  # NaN equal to NaN
        assert judged.verified is (expected[0] == 0)
        assert judged.mismatches > 0


def test_an_all_nan_reference_gives_no_relative_error(monkeypatch):
    monkeypatch.setattr(verifying, "CHUNK", 16)
    value = np.full(100, np.nan)
    output = np.zeros(100, dtype=np.float32)
    judged = verifying.verify(output, Reference(value, np.abs(value), 1), np.float32)
    assert judged.mismatches == 100 and judged.max_rel_error == judged.max_abs_error


def test_one_allowance_for_all_and_empty_results():
    value = np.arange(10.0)
    judged = verifying.verify(
        value.astype(np.float32), Reference(value, np.float64(9.0), 1), np.float32
    )
    assert judged.verified and judged.mismatches == 0
    empty = np.zeros(0)
    judged = verifying.verify(empty.astype(np.float32), Reference(empty, empty, 1), np.float32)
    assert judged.verified and judged.max_abs_error == 0.0


def test_a_large_result_is_judged_with_memory_near_one_piece(monkeypatch):
    """Ten million uint8 elements, as a captured launch's answer: the comparison's temporaries
    stay near one piece's (80 bytes an element of a piece), not 80 bytes an element of the
    result (800 MB)."""
    monkeypatch.setattr(verifying, "CHUNK", 1 << 16)
    n = 10_000_000
    value = (np.arange(n) % 251).astype(np.uint8)
    output = value.copy()
    output[123_456] += 1
    reference = Reference(value, value, 1)
    tracemalloc.start()
    try:
        judged = verifying.verify(output, reference, np.uint8)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert judged.mismatches == 1 and judged.max_abs_error == 1.0
    assert peak < 200 * (1 << 16) + (1 << 20), f"{peak} bytes at the peak"
