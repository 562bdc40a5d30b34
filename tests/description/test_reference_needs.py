"""Which inputs one element of a reference needs, read from a numpy reference expression."""

import numpy as np
import pytest

from explorer.description.reference_needs import expression_needs

RNG = np.random.default_rng(7)
A = RNG.uniform(-1, 1, (5, 4))
B = RNG.uniform(-1, 1, (4, 6))
IMAGE = RNG.uniform(-1, 1, (6, 7))


def needs(expression, scope, where, result_shape=None):
    buffers = {name: np.shape(value) for name, value in scope.items() if np.ndim(value)}
    if result_shape is None:
        from explorer.description.numpy_expressions import evaluate_array

        result_shape = evaluate_array(expression, scope).shape
    return expression_needs(expression, scope, buffers, result_shape, where)


def cells(mask):
    return {tuple(int(v) for v in w) for w in np.argwhere(mask)}


@pytest.mark.parametrize(
    "expression",
    [
        "A @ B",
        "matmul(A, B)",
        "dot(A, B)",
        "einsum('ik,kj->ij', A, B)",
        "np.einsum('ik,kj->ij', A, B)",
        "numpy.matmul(A, B)",
        "A.dot(B)",
        "(B.T @ A.T).T",
        "(A @ B).astype(np.float32)",
    ],
)
def test_a_product_needs_a_row_of_a_and_a_column_of_b(expression):
    found = needs(expression, {"A": A, "B": B}, (2, 3))
    assert cells(found["A"]) == {(2, k) for k in range(4)}
    assert cells(found["B"]) == {(k, 3) for k in range(4)}


def test_a_transpose_needs_the_mirrored_element():
    found = needs("src.T", {"src": IMAGE}, (5, 2))
    assert cells(found["src"]) == {(2, 5)}


def test_a_stencil_written_with_slices_needs_its_neighbours():
    expression = (
        "img[:-2, 1:-1] + img[2:, 1:-1] + img[1:-1, :-2] + img[1:-1, 2:] - 4 * img[1:-1, 1:-1]"
    )
    found = needs(expression, {"img": IMAGE}, (1, 2))
    assert cells(found["img"]) == {(1, 3), (3, 3), (2, 2), (2, 4), (2, 3)}


@pytest.mark.parametrize("expression", ["alpha * sum(A, axis=1) + y", "alpha * A.sum(axis=1) + y"])
def test_a_sum_along_an_axis_needs_that_whole_axis_and_a_scalar_needs_nothing(expression):
    found = needs(expression, {"A": A, "y": np.ones(5), "alpha": 2.0}, (3,))
    assert cells(found["A"]) == {(3, k) for k in range(4)}
    assert cells(found["y"]) == {(3,)}


def test_broadcasting_a_row_needs_its_element_in_that_column():
    row = RNG.uniform(-1, 1, (1, 7))
    found = needs("IMAGE * row", {"IMAGE": IMAGE, "row": row}, (4, 6))
    assert cells(found["row"]) == {(0, 6)}
    assert cells(found["IMAGE"]) == {(4, 6)}


def test_a_result_shown_flat_maps_the_element_through_its_index():
    found = needs("A @ B", {"A": A, "B": B}, (15,), result_shape=(30,))  # row 2, column 3
    assert cells(found["A"]) == {(2, k) for k in range(4)}
    assert cells(found["B"]) == {(k, 3) for k in range(4)}


def test_a_diagonal_taken_by_einsum_needs_its_one_element():
    found = needs("einsum('ii->i', A2)", {"A2": np.eye(4)}, (1,))
    assert cells(found["A2"]) == {(1, 1)}


def test_where_needs_its_condition_and_the_branch_it_takes():
    x, y = np.array([1.0, -2.0, 3.0]), np.array([9.0, 8.0, 7.0])
    found = needs("where(x > 0, x, y)", {"x": x, "y": y}, (1,))
    assert cells(found["x"]) == {(1,)} and cells(found["y"]) == {(1,)}
    found = needs("where(x > 0, x, y)", {"x": x, "y": y}, (2,))
    assert cells(found["x"]) == {(2,)} and cells(found["y"]) == set()


@pytest.mark.parametrize(
    ("expression", "why"),
    [
        ("alpha * x[index] + y", "picks by value"),
        ("sort(x)", "sort() is not followed"),
        ("einsum('ii->', A2)", "diagonal"),
    ],
)
def test_a_reference_that_picks_by_value_leaves_the_needs_unknown(expression, why):
    scope = {
        "x": np.arange(4.0),
        "y": np.ones(4),
        "index": np.array([3, 2, 1, 0]),
        "alpha": 2.0,
        "A2": np.eye(4),
    }
    found = needs(expression, scope, () if "ii->" in expression else (1,))
    assert isinstance(found, str)
    assert why in found
