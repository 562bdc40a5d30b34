"""A reference that joins a border and an interior with ``concatenate((...))`` (PolyBench's
2DCONV and jacobi-2d, SHOC's Stencil2D) is judged with the magnitudes of the terms behind
each element, as any other: a correct stencil whose interior sums terms of both signs is
verified, not called wrong by a tolerance taken from the interior's own small values."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.description.numpy_expressions import evaluate_reference
from explorer.engine.header.catalog import load_variant_file
from explorer.engine.records import RunRequest
from tests.conftest import TEST_KERNELS

JOINED = TEST_KERNELS / "references"


def test_concatenate_joins_the_magnitudes_of_its_arrays():
    border = np.array([-3.0, 4.0])
    a = np.array([1.0, -2.0, 5.0])
    b = np.array([1.0, -2.5, 4.0])
    value, magnitude = evaluate_reference(
        "concatenate((border, a - b))", {"border": border, "a": a, "b": b}
    )
    assert np.array_equal(value, [-3.0, 4.0, 0.0, 0.5, 1.0])
    # |a| + |b| where the two cancel, not the |a - b| of the value
    assert np.array_equal(magnitude, [3.0, 4.0, 2.0, 4.5, 9.0])


def test_stack_and_a_list_of_arrays_join_magnitudes_too():
    a = np.array([2.0, -1.0])
    value, magnitude = evaluate_reference("stack([a - a, a + a], axis=0)", {"a": a})
    assert np.array_equal(value, [[0.0, 0.0], [4.0, -2.0]])
    assert np.array_equal(magnitude, [[4.0, 2.0], [4.0, 2.0]])


def test_a_shape_given_as_a_tuple_is_still_a_shape():
    x = np.arange(6.0) - 3.0
    value, magnitude = evaluate_reference("reshape(x, (2, 3)) - 1", {"x": x})
    assert value.shape == magnitude.shape == (2, 3)
    assert np.array_equal(magnitude, np.abs(x).reshape(2, 3) + 1)


@pytest.mark.parametrize("name", ["convolution_2d", "jacobi_2d", "stencil_2d"])
@pytest.mark.parametrize("sizes", [{}, {"W": 57, "H": 31}], ids=["40x24", "57x31"])
def test_a_correct_stencil_with_a_joined_reference_is_verified(executor, device, name, sizes):
    variant = load_variant_file(JOINED / f"{name}.cl")
    result = executor.run(RunRequest(variant, sizes, device_key=device.key, repeat=1))
    assert result.status == "verified", result.summary()


def test_a_wrong_stencil_with_a_joined_reference_is_still_wrong(executor, device, tmp_path):
    """The tolerance grew to the terms' size, no further: a neighbour read one place off
    is still wrong."""
    source = (JOINED / "jacobi_2d.cl").read_text(encoding="utf-8")
    wrong = source.replace("A[i - 1] + A[i + 1]", "A[i - 1] + A[i + 2]")
    assert wrong != source
    path = tmp_path / "jacobi_2d.cl"
    path.write_text(wrong, encoding="utf-8")
    variant = load_variant_file(path)
    result = executor.run(RunRequest(variant, {}, device_key=device.key, repeat=1))
    assert result.status == "wrong", result.summary()
