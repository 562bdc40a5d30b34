"""Each family states which inputs an element of its output needs (what "Why is this element
wrong" sets beside what flowed in)."""

import numpy as np
import pytest

from explorer.description.launch import Setting
from explorer.families import FAMILIES


def needs(family, sizes, where, inputs=None):
    model = FAMILIES[family]
    found = model.reference_needs(Setting(sizes, {}, (1,)), inputs or {}, model.output_role, where)
    assert not isinstance(found, str), found
    return {name: {tuple(int(v) for v in w) for w in np.argwhere(m)} for name, m in found.items()}


def test_matmul_needs_a_row_of_a_and_a_column_of_b():
    found = needs("matmul", {"M": 4, "N": 5, "K": 3}, (2, 4))
    assert found == {"A": {(2, k) for k in range(3)}, "B": {(k, 4) for k in range(3)}}


def test_transpose_needs_the_mirrored_element():
    assert needs("transpose", {"WIDTH": 5, "HEIGHT": 3}, (4, 1)) == {"IN": {(1, 4)}}


def test_matvec_and_rowdot_need_a_row_and_the_whole_vector():
    found = needs("matvec", {"WIDTH": 3, "HEIGHT": 4}, (2,))
    assert found == {"MAT": {(2, 0), (2, 1), (2, 2)}, "VEC": {(0,), (1,), (2,)}}
    found = needs("rowdot", {"D": 3}, (1,))
    assert found["MAT1"] == found["MAT2"] == {(1, 0), (1, 1), (1, 2)}
    assert found["VECTOR"] == {(0,), (1,), (2,)}


@pytest.mark.parametrize(
    ("where", "expected"),
    [
        ((2, 2), {(r, c) for r in (1, 2, 3) for c in (1, 2, 3)}),
        ((0, 0), {(0, 0), (0, 1), (1, 0), (1, 1)}),  # clamped at the corner
    ],
)
def test_the_stencil_needs_the_neighbourhood_clamped_at_the_edges(where, expected):
    assert needs("stencil", {"WIDTH": 5, "HEIGHT": 4}, where) == {"IN": expected}


def test_a_histogram_bin_needs_the_values_that_fall_into_it():
    values = np.array([3, 1, 3, 0, 2, 3], dtype=np.int32)
    found = needs("histogram", {"VALUES": 6, "BINS": 4}, (3,), {"IN": values})
    assert found == {"IN": {(0,), (2,), (5,)}}
