"""A promised region reads as the numpy subscript it is written as."""

import numpy as np
import pytest

from explorer.description.elements import element_type
from explorer.description.launch import BufferParam, Fill
from explorer.description.regions import RegionError, region_mask

GRID = np.arange(20).reshape(4, 5)


@pytest.mark.parametrize(
    ("region", "subscript"),
    [
        ("[1:-1, 1:-1]", np.s_[1:-1, 1:-1]),
        ("[0]", np.s_[0]),
        ("[-1, :]", np.s_[-1, :]),
        ("[:, ::2]", np.s_[:, ::2]),
        ("[1:3, 4]", np.s_[1:3, 4]),
        ("[::-1, 2:]", np.s_[::-1, 2:]),
        ("[1,]", np.s_[1,]),
    ],
)
def test_a_region_holds_what_numpy_indexes(region, subscript):
    held = GRID[region_mask(region, GRID.shape)]
    assert sorted(held.tolist()) == sorted(np.ravel(GRID[subscript]).tolist())


def test_all_holds_every_element():
    assert region_mask("all", (3, 2)).all()


def test_an_index_outside_the_shape_is_named():
    with pytest.raises(RegionError, match=r"index 4 is outside dimension 0 .* 4 × 5"):
        region_mask("[4]", GRID.shape)


def test_a_promise_in_a_column_major_buffer_is_stored_column_by_column():
    """The promise is over the matrix as a person sees it; the device holds column 0 first."""
    param = BufferParam(
        "C", element_type("float"), 6, (2, 3), Fill(0), "write", column_major=True, writes="[0]"
    )
    promised = param.promise.device_bytes().reshape(6, 4).all(axis=1)
    assert promised.tolist() == [True, False, True, False, True, False]


def test_nothing_promised_is_no_promise():
    for writes in ("", "none"):
        param = BufferParam("x", element_type("int"), 4, (4,), Fill(0), writes=writes)
        assert param.promise is None
