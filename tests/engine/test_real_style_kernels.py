"""Kernels in the styles of PolyBench's 2DCONV, fdtd-2d and jacobi-2d and SHOC's spmv (scalar
and vector) and Stencil2D, on random data of both signs, each with the numpy reference a
person writes for it: a float32 cast, ``np.pad`` of the input or of the interior, ``np.roll``
with ``np.where``, ``np.concatenate`` with ``np.diff`` of the updated fields, the differences
of running sums at the row delimiters, a formula over several lines. Correct, each is
verified (the tolerance follows the terms behind each element, not its small value); with
one index off, each is still wrong, at every element the change reaches."""

from __future__ import annotations

import pytest

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.records import RunRequest
from tests.conftest import TEST_KERNELS

REALS = TEST_KERNELS / "reals"

# One change each: (the text, what it becomes). Every one reads a neighbour, a term or a
# partial sum one place off.
MUTANTS = {
    "convolution_2d": ("c33 * A[(i + 1) * nj + (j + 1)]", "c33 * A[(i + 1) * nj + (j + 2)]"),
    "fdtd_2d_step": (
        "+ ey[(i + 1) * ny + j] - ey[i * ny + j]",
        "+ ey[(i + 1) * ny + j] - ey[i * ny + j + 1]",
    ),
    "jacobi_2d": ("A[(i - 1) * n + j]", "A[(i - 1) * n + j + 1]"),
    "spmv_csr_scalar": ("int j = start; j < end", "int j = start + 1; j < end"),
    "spmv_csr_vector": ("bar > 0; bar /= 2", "bar > 1; bar /= 2"),
    "stencil2d": ("get_group_id(1) * LY - 1;", "get_group_id(1) * LY;"),
}


def _run(executor, device, path, sizes=None):
    variant = load_variant_file(path)
    return executor.run(RunRequest(variant, sizes or {}, device_key=device.key, repeat=1))


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_a_correct_kernel_with_the_reference_a_person_writes_is_verified(executor, device, name):
    result = _run(executor, device, REALS / f"{name}.cl")
    assert result.status == "verified", result.summary()


@pytest.mark.parametrize(
    ("name", "sizes"),
    [("convolution_2d", {"NI": 61, "NJ": 53}), ("stencil2d", {"W": 100, "H": 67})],
)
def test_it_is_verified_at_another_size(executor, device, name, sizes):
    result = _run(executor, device, REALS / f"{name}.cl", sizes)
    assert result.status == "verified", result.summary()


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_the_same_kernel_one_place_off_is_wrong(executor, device, tmp_path, name):
    source = (REALS / f"{name}.cl").read_text(encoding="utf-8")
    old, new = MUTANTS[name]
    assert source.count(old) == 1
    path = tmp_path / f"{name}.cl"
    path.write_text(source.replace(old, new), encoding="utf-8")
    result = _run(executor, device, path)
    assert result.status == "wrong", result.summary()
    assert result.verdict is not None and result.verdict.mismatches > 0
