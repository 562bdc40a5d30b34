"""The tolerance of a numpy reference follows the terms behind each element however the
reference is written: a conversion to float32, a ``diff`` (of values, or of running sums read
at a sparse matrix's row delimiters), ``maximum``/``clip``/``abs``, a whole power,
``vstack``/``hstack`` give the magnitude of the same formula written out term by term; no
larger, so a wrong kernel is judged as before. A formula over several lines, each starting
with its operator, is read as the one line it means."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.description.expressions import ExpressionError
from explorer.description.numpy_expressions import check_expression, evaluate_reference

RNG = np.random.default_rng(39)
A = RNG.uniform(-1, 1, (5, 6))
B = A + RNG.uniform(-1e-6, 1e-6, (5, 6))  # a - b cancels: tiny values, large terms
NAMES = {"a": A, "b": B}

# (as a person writes it, the same formula written out term by term)
SAME_TERMS = [
    ("(a - b).astype(np.float32)", "a - b"),
    ("np.float32(a - b)", "a - b"),
    ("np.float64(0.5 * (a - b))", "0.5 * (a - b)"),
    ("np.diff(a - b)", "(a - b)[:, 1:] - (a - b)[:, :-1]"),
    ("np.diff(a - b, axis=0)", "(a - b)[1:] - (a - b)[:-1]"),
    (
        "np.diff(a - b, n=2)",
        "((a - b)[:, 2:] - (a - b)[:, 1:-1]) - ((a - b)[:, 1:-1] - (a - b)[:, :-2])",
    ),
    ("(a - b) ** 2", "(a - b) * (a - b)"),
    ("np.vstack((a - b, b))", "np.concatenate((a - b, b))"),
    ("np.hstack([a - b, a])", "np.concatenate([a - b, a], axis=1)"),
]


@pytest.mark.parametrize(("written", "spelled_out"), SAME_TERMS, ids=[w for w, _ in SAME_TERMS])
def test_a_formula_has_the_magnitude_of_its_terms_written_out(written, spelled_out):
    assert check_expression(written, NAMES) is None
    value, magnitude = evaluate_reference(written, NAMES)
    expected_value, expected_magnitude = evaluate_reference(spelled_out, NAMES)
    np.testing.assert_allclose(value, expected_value, rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(magnitude, expected_magnitude, rtol=1e-12)
    # far above the value itself: the cancellation is kept in sight
    assert (magnitude > 1e3 * np.abs(value)).any()


def test_a_conversion_to_an_integer_type_is_judged_by_its_value():
    value, magnitude = evaluate_reference("(4 * a).astype(np.int32)", NAMES)
    np.testing.assert_array_equal(magnitude, np.abs(value))


def test_maxima_minima_and_clipping_take_the_largest_magnitude_they_choose_from():
    d = np.abs(A) + np.abs(B)
    _, absolute = evaluate_reference("abs(a - b)", NAMES)
    np.testing.assert_allclose(absolute, d)
    _, relu = evaluate_reference("np.maximum(a - b, 0)", NAMES)
    np.testing.assert_allclose(relu, d)
    _, rows = evaluate_reference("(a - b).min(axis=1)", NAMES)
    np.testing.assert_allclose(rows, d.max(axis=1))
    _, clipped = evaluate_reference("np.clip(a - b, -1e-7, 1e-7)", NAMES)
    np.testing.assert_allclose(clipped, d)  # a bound counts where it is the value (tiny here)
    _, bounded = evaluate_reference("np.clip(a, -0.5, 0.5)", NAMES)
    np.testing.assert_allclose(bounded, np.abs(A))


def _csr(rows: int, longest: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, longest + 1, rows)
    lengths[2] = 0  # an empty row
    delimiters = np.concatenate(([0], np.cumsum(lengths))).astype(np.int32)
    nnz = int(delimiters[-1])
    return {
        "val": rng.uniform(-1, 1, nnz).astype(np.float32),
        "vec": rng.uniform(-1, 1, rows).astype(np.float32),
        "cols": rng.integers(0, rows, nnz).astype(np.int32),
        "rowDelimiters": delimiters,
    }


@pytest.mark.parametrize(
    "reference",
    [
        "np.diff(np.concatenate(([0], np.cumsum(val * vec[cols])))[rowDelimiters])",
        "np.diff(np.hstack(([0.0], np.cumsum(val * vec[cols])))[rowDelimiters])",
        "np.diff(np.pad(np.cumsum(val * vec[cols]), (1, 0))[rowDelimiters])",
        "np.diff(np.concatenate((np.zeros(1), (val * vec[cols]).cumsum()))[rowDelimiters])",
    ],
)
def test_a_sparse_row_sum_from_running_sums_has_its_own_row_terms(reference):
    """SHOC's spmv checked the way a person writes it without scipy: the differences of the
    running sums of the products at the row delimiters. Each row is judged by its own
    products, not by its small sum, nor by all the rows summed before it."""
    names = _csr(rows=40, longest=12, seed=5)
    value, magnitude = evaluate_reference(reference, names)
    starts = names["rowDelimiters"]
    products = names["val"].astype(np.float64) * names["vec"][names["cols"]]
    rows = [products[starts[r] : starts[r + 1]].astype(np.float64) for r in range(40)]
    np.testing.assert_allclose(value, [row.sum() for row in rows], atol=1e-12)
    np.testing.assert_allclose(magnitude, [np.abs(row).sum() for row in rows], atol=1e-12)


def test_a_diff_across_the_running_sum_is_the_sum_of_both_sides():
    """Running sums along the rows, differences down the columns: not partial sums of the
    same terms, so both sides count."""
    names = {"a": A - B}
    _, magnitude = evaluate_reference("np.diff(np.cumsum(a, axis=1), axis=0)", names)
    running = np.cumsum(np.abs(A - B), axis=1)
    np.testing.assert_allclose(magnitude, running[1:] + running[:-1])
    _, along = evaluate_reference("np.diff(np.cumsum(a, axis=1), axis=1)", names)
    np.testing.assert_allclose(along, np.abs(A - B)[:, 1:])


def test_a_formula_over_several_lines_each_starting_with_its_operator():
    text = "0.5 * a\n    + 0.25 * (b[:, :1]\n               - a[:, :1])\n    - b"
    assert check_expression(text, NAMES) is None
    value, magnitude = evaluate_reference(text, NAMES)
    np.testing.assert_allclose(value, 0.5 * A + 0.25 * (B[:, :1] - A[:, :1]) - B)
    np.testing.assert_allclose(
        magnitude, 0.5 * np.abs(A) + 0.25 * (np.abs(B[:, :1]) + np.abs(A[:, :1])) + np.abs(B)
    )


@pytest.mark.parametrize(
    "text",
    ["a\n    + * b", "a  # the centre\n    + b", "a\n  + b)"],
    ids=["a syntax error", "a comment", "an unbalanced bracket"],
)
def test_a_formula_over_several_lines_that_is_not_one_is_refused_as_written(text):
    problem = check_expression(text, NAMES)
    assert problem is not None and "cannot parse" in problem
    with pytest.raises(ExpressionError, match="cannot parse"):
        evaluate_reference(text, NAMES)
