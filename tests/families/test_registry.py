"""The registry: every layer finds a family, and everything about it, in one place."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.description.launch import Setting
from explorer.engine.header.catalog import variants_of
from explorer.families import FAMILIES, UnknownFamilyError, get_family

# The families with fixed maths; a custom kernel declares its own (tests/families/test_custom.py).
FIXED = [f for f in FAMILIES.values() if f.family != "custom"]


def test_an_unknown_family_is_refused_with_the_known_ones_named():
    with pytest.raises(UnknownFamilyError) as caught:
        get_family("convolution")
    message = str(caught.value)
    assert "convolution" in message
    assert all(name in message for name in FAMILIES)


@pytest.mark.parametrize("family", FIXED, ids=lambda f: f.family)
def test_family_describes_itself_completely(family):
    assert get_family(family.family) is family
    flags = family.size_flags()
    assert list(flags) == list(family.size_names)
    assert all(flag.startswith("--") for flag in flags.values())
    assert set(family.required_roles) <= set(family.roles)
    assert family.output_role in family.buffer_roles
    assert len(family.launch_global) == len(family.launch_local)
    assert [v.id for v in variants_of(family.family)][: len(family.ladder)] == list(family.ladder)


@pytest.mark.parametrize("family", FIXED, ids=lambda f: f.family)
def test_numpy_baseline_agrees_with_the_reference(family):
    sizes = family.test_sizes[-1]
    inputs = family.make_inputs(sizes, np.dtype("float32"), "random")
    reference = family.reference(inputs, sizes)
    baseline = family.numpy_baseline(inputs)
    assert baseline.shape == family.output_shape(sizes) == reference.value.shape
    assert np.allclose(baseline, reference.value, rtol=1e-4, atol=1e-4)


def test_local_memory_arguments_come_from_the_family():
    matvec = get_family("matvec")
    setting = Setting({"WIDTH": 128, "HEIGHT": 64}, {}, (64,))
    described = matvec.describe(setting, ("MAT", "VEC", "OUT", "SCRATCH"), "row-major", "float32")
    assert described.local_bytes == 256
    matmul = get_family("matmul").describe(
        Setting({"M": 16, "N": 16, "K": 16}, {}, (16, 16)), ("A", "B", "C"), "row-major", "float32"
    )
    assert matmul.local_bytes == 0


def test_constants_are_scalars_of_their_family():
    rowdot = get_family("rowdot")
    assert "FACTOR" in rowdot.scalar_roles and "FACTOR" not in rowdot.buffer_roles
    assert rowdot.scalar("FACTOR", {"D": 4}) == 0.5
