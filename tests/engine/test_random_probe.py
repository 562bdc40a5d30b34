"""Two inputs for every verdict: the input shown and a random probe of the same shapes.

The IOU input is A = 1.5·I and B a picture that is one value but for its text: a matmul that
reads A's subscripts swapped, stores the A tile transposed, or reads B one column over gives
the right picture. Our own one-change mutants of the catalog's kernels (tests/kernels/mutants)
prove it on the input shown alone, then the probe calls each of them wrong, in words that
name the probe and why the IOU input cannot show the bug; the right kernels stay verified."""

from __future__ import annotations

import numpy as np
import pytest

from explorer.description.launch import Setting
from explorer.engine.header.catalog import find_variant, load_variant_file
from explorer.engine.records import RunRequest, result_record
from explorer.families import FAMILIES
from explorer.families.base import PROBE_SEED, ProbeDescription
from tests.conftest import TEST_KERNELS

MUTANTS = TEST_KERNELS / "mutants"
# (mutant, sizes): square where A's symmetry hides the bug; 100×36×257, where the IOU picture
# is blank enough that B read one column over gives the same product.
CASES = [
    ("naive_a_swapped", {"M": 32, "N": 32, "K": 32}),
    ("tiled_a_tile_transposed", {"M": 32, "N": 32, "K": 32}),
    ("naive_b_column_shift", {"M": 100, "N": 36, "K": 257}),
]


def _run(executor, device, variant, sizes, **kwargs):
    request = RunRequest(variant, sizes, device_key=device.key, repeat=1, **kwargs)
    return executor.run(request)


@pytest.mark.parametrize("name, sizes", CASES, ids=[c[0] for c in CASES])
def test_the_iou_input_alone_calls_each_mutant_verified(executor, device, name, sizes):
    """The premise: judged on the IOU input only (no probe, as before), each reads right."""
    variant = load_variant_file(MUTANTS / f"{name}.cl")
    result = _run(executor, device, variant, sizes, input="iou", probe_seed=None)
    assert result.status == "verified", result.summary()
    assert result.verdict.max_abs_error == 0.0
    assert not result.verdict.probed


@pytest.mark.parametrize("name, sizes", CASES, ids=[c[0] for c in CASES])
def test_the_random_probe_calls_each_mutant_wrong_and_says_why(executor, device, name, sizes):
    variant = load_variant_file(MUTANTS / f"{name}.cl")
    result = _run(executor, device, variant, sizes, input="iou")
    verdict = result.verdict
    assert result.status == "wrong", result.summary()
    assert verdict.on_shown_input and verdict.mismatches == 0  # the picture is still right
    assert verdict.wrong_on_probe_only and verdict.probe_mismatches > 0
    assert verdict.probe_seed == PROBE_SEED
    summary = result.summary()
    assert summary.startswith("WRONG")
    assert f"WRONG on random data (seed {PROBE_SEED}: {verdict.probe_mismatches} wrong" in summary
    assert "the IOU input cannot show this bug (A = 1.5·I is symmetric and diagonal" in summary
    record = result_record(result)
    assert record["status"] == "wrong" and record["probe_verified"] is False
    assert record["probe_seed"] == PROBE_SEED and record["probe_mismatches"] > 0


@pytest.mark.parametrize("variant_id", ["naive", "tiled"])
@pytest.mark.parametrize("sizes", [{"M": 32, "N": 32, "K": 32}, {"M": 100, "N": 36, "K": 257}])
def test_the_right_kernels_stay_verified_on_both_inputs(executor, device, variant_id, sizes):
    result = _run(executor, device, find_variant("matmul", variant_id), sizes, input="iou")
    assert result.status == "verified", result.summary()
    assert result.verdict.probed and result.verdict.probe_verified
    assert f"also verified on random data (seed {PROBE_SEED})" in result.summary()
    # What the window draws is still the IOU product: C = 1.5·B.
    shown_b = result.inputs["B"].astype(np.float64)
    assert np.allclose(result.output, 1.5 * shown_b[: sizes["M"]])


def test_the_identity_input_is_probed_too(executor, device):
    variant = load_variant_file(MUTANTS / "naive_a_swapped.cl")
    result = _run(executor, device, variant, {"M": 32, "N": 32, "K": 32}, input="identity")
    assert result.status == "wrong", result.summary()
    assert "the identity input cannot show this bug (A = I is symmetric" in result.summary()


def test_a_random_input_is_not_probed_again(executor, device):
    """A second draw of the same kind shows no more than the first: no second launch."""
    variant = load_variant_file(MUTANTS / "naive_a_swapped.cl")
    result = _run(executor, device, variant, {"M": 32, "N": 32, "K": 32}, input="random")
    assert result.status == "wrong", result.summary()  # random data shows the bug itself
    assert not result.verdict.probed
    assert result.verdict.probe_note == "the input shown is random data already"
    assert result_record(result)["probe_seed"] is None


def test_every_family_probes_its_pictures_with_its_own_random_input():
    """The probe of a family's picture input has the same buffers and shapes, on the
    family's random input drawn with the probe's seed; a random input has none."""
    for family in FAMILIES.values():
        for preset in set(getattr(family, "input_presets", ())) - {"random", "declared", "image"}:
            sizes = dict(family.test_sizes[0])
            setting = Setting(sizes, {}, (1,), input=preset)
            dtype = np.dtype("int32" if family.family == "histogram" else "float32")
            shown = family.describe(setting, family.roles, "row-major", dtype)
            probe = family.probe(setting, family.roles, "row-major", dtype, 7)
            assert isinstance(probe, ProbeDescription), (family.family, preset)
            assert probe.shown and probe.hides
            assert [(b.name, b.shape) for b in probe.description.buffers] == [
                (b.name, b.shape) for b in shown.buffers
            ]
            made = next(b for b in probe.description.buffers if not b.result).contents
            expected = family.make_inputs(sizes, dtype, "random", seed=7)
            for name, array in made.make().items():
                assert np.array_equal(array, expected[name]), (family.family, name)
        if "random" in getattr(family, "input_presets", ()):
            setting = Setting(dict(family.test_sizes[0]), {}, (1,), input="random")
            probe = family.probe(setting, family.roles, "row-major", np.dtype("float32"), 7)
            assert isinstance(probe, str)


# A kernel whose header gives its float input a placeholder (ones) beside an index it reads
# through (an iota of uint) and a random input: the probe replaces the placeholder only.
GATHER = """/*---
name = "Gathered sum"
family = "custom"
kernel = "gathered"
global = ["N"]
local = ["8"]
[sizes]
N = 64
[args.index]
buffer = "uint"
count = "N"
contents = "iota"
access = "read"
[args.weights]
buffer = "float"
count = "N"
contents = "ones"
access = "read"
[args.x]
buffer = "float"
count = "N"
access = "read"
range = [0, 4]
[args.y]
buffer = "float"
count = "N"
access = "write"
result = true
[reference]
numpy = "weights[index] * x[index]"
---*/
#line 1
__kernel void gathered(__global const uint* index, __global const float* weights,
                       __global const float* x, __global float* y)
{
    const int i = get_global_id(0);
    y[i] = WEIGHT * x[index[i]];
}
"""


def _custom(tmp_path, weight: str, name: str = "gathered.cl"):
    path = tmp_path / name
    path.write_text(GATHER.replace("WEIGHT", weight), encoding="utf-8")
    return load_variant_file(path)


def test_a_declared_placeholder_is_probed_and_named(executor, device, tmp_path):
    """Reading weights[i] for weights[index[i]] is right while the weights are all ones."""
    right = _run(executor, device, _custom(tmp_path, "weights[index[i]]"), {})
    assert right.status == "verified", right.summary()
    assert right.verdict.probed and right.verdict.probe_verified
    wrong = _run(executor, device, _custom(tmp_path, "1.0f", "wrong.cl"), {})
    assert wrong.status == "wrong", wrong.summary()
    assert wrong.verdict.wrong_on_probe_only
    assert "the declared contents cannot show this bug (weights is 1 everywhere)" in wrong.summary()


def test_a_probe_keeps_indices_and_draws_a_declared_range_again(executor, device, tmp_path):
    """The probe's index is still the iota (an index drawn at random would read anywhere),
    and x is drawn again in its declared range."""
    from explorer.engine.launch.prepare import make_probe, prepare

    variant = _custom(tmp_path, "weights[index[i]]")
    p = prepare(RunRequest(variant, {}, device_key=device.key, repeat=1))
    probe = make_probe(p)
    assert not isinstance(probe, str), probe
    assert np.array_equal(probe.inputs["index"], p.inputs["index"])
    assert not np.array_equal(probe.inputs["weights"], p.inputs["weights"])
    assert not np.array_equal(probe.inputs["x"], p.inputs["x"])
    assert probe.inputs["x"].min() >= 0 and probe.inputs["x"].max() < 4


def test_answers_given_as_arrays_are_not_probed(executor, device, tmp_path):
    """A kernel judged against given arrays (a captured launch's output) has no answer for
    other contents: it is judged on its own data alone."""
    x = np.ones(64, dtype=np.float32)
    np.save(tmp_path / "y.npy", x * 2)
    header = GATHER.replace('numpy = "weights[index] * x[index]"', 'expected = {y = "y.npy"}')
    header = header.replace('access = "read"\nrange = [0, 4]', 'access = "read"\ncontents = "ones"')
    path = tmp_path / "given.cl"
    path.write_text(header.replace("WEIGHT", "2.0f * weights[index[i]]"), encoding="utf-8")
    result = _run(executor, device, load_variant_file(path), {})
    assert result.status == "verified", result.summary()
    assert not result.verdict.probed
    assert "given arrays" in result.verdict.probe_note
