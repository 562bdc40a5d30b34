"""Every catalog variant against numpy on the test device, at the sizes its family lists:
tile multiples and sizes that are not. Seed kernels must still show their known bugs."""

from __future__ import annotations

import dataclasses

import pytest

from explorer.engine.header.catalog import catalog, find_variant, variants_of
from explorer.engine.launch.plan import plan
from explorer.engine.records import DeviceInfo, Refusal, RunRequest, Variant
from explorer.families import FAMILIES
from tests.engine.record_outcomes import two_sizes

CORRECT = [v for v in catalog() if not v.bug]
BUGGY = [v for v in catalog() if v.bug]

# The families with fixed maths; a custom kernel declares its own (tests/families/test_custom.py).
FIXED = [f for f in FAMILIES.values() if f.family != "custom"]


def _unoptimised(variant: Variant) -> Variant:
    """The variant built without the compiler's optimiser: for a test of what the kernel's
    own code computes at sizes no other test launches (its strips, its unaligned loops), not
    of the build. PoCL's optimiser spends 5 to 13 s on each of these 32×32-tile builds,
    unoptimised in under a second. Each variant's optimised build, at its own defines, is
    verified by test_correct_variant_is_verified_at_every_allowed_size and
    tests/engine/test_recorded_outcomes.py."""
    return dataclasses.replace(variant, build_options=(*variant.build_options, "-cl-opt-disable"))


def _runnable(variant: Variant, device: DeviceInfo) -> list[dict[str, int]]:
    return [
        size
        for size in FAMILIES[variant.family].test_sizes
        if not isinstance(plan(variant, size, None, {}, device), Refusal)
    ]


@pytest.mark.parametrize("family", FIXED, ids=lambda f: f.family)
def test_every_family_lists_tile_multiples_and_odd_sizes(family):
    sizes = family.test_sizes
    assert any(all(v % 16 == 0 for v in s.values()) for s in sizes), sizes
    assert any(any(v % 2 == 1 and v > 1 for v in s.values()) for s in sizes), sizes
    assert all(family.check_sizes(s) == s for s in sizes)


@pytest.mark.parametrize("variant", CORRECT, ids=lambda v: v.qualified_id)
def test_correct_variant_is_verified_at_every_allowed_size(executor, device, variant):
    sizes = _runnable(variant, device)
    if not sizes:
        pytest.fail(f"{variant.qualified_id} refuses every test size of {variant.family}")
    # Two of the sizes are run and compared with their recorded outputs (and verdicts) by
    # tests/engine/test_recorded_outcomes.py: the others here.
    recorded = two_sizes(variant)
    for size in (s for s in sizes if s not in recorded):
        result = executor.run(
            RunRequest(variant, size, device_key=device.key, repeat=2, input="random")
        )
        assert result.status == "verified", f"{size}: {result.summary()}"
        assert result.verdict is not None and result.verdict.mismatches == 0


@pytest.mark.parametrize("variant", BUGGY, ids=lambda v: v.qualified_id)
def test_seed_bug_still_shows_on_pocl(executor, device, on_pocl, variant):
    """A seed kernel's documented bug gives a wrong answer (or a crash) at one of the test
    sizes; where its header refuses a size because of the bug, the bug shows once the
    refusal is lifted. On other devices a race may happen to come out right."""
    if not on_pocl:
        pytest.skip("the races of the seed kernels are certain only on PoCL")
    seen = []
    for size in FAMILIES[variant.family].test_sizes:
        candidate = variant
        if isinstance(plan(candidate, size, None, {}, device), Refusal):
            candidate = dataclasses.replace(variant, constraints=())
            if isinstance(plan(candidate, size, None, {}, device), Refusal):
                continue
        result = executor.run(RunRequest(candidate, size, device_key=device.key, repeat=2))
        seen.append(f"{size}: {result.status}")
        if result.status in ("wrong", "crashed"):
            if result.status == "wrong":
                assert result.verdict is not None and result.verdict.mismatches > 0
            return
    pytest.fail(f"{variant.qualified_id}: its bug no longer shows ({'; '.join(seen)})")


def test_a_correct_variant_would_be_caught_computing_the_wrong_answer(executor, device):
    """The verdict is not a formality: an off-by-one tile index is reported wrong."""
    from explorer.engine.header.catalog import load_variant_file
    from tests.conftest import TEST_KERNELS

    broken = load_variant_file(TEST_KERNELS / "tiled_off_by_one.cl")
    size = {name: 64 for name in FAMILIES[broken.family].size_names}
    result = executor.run(RunRequest(broken, size, device_key=device.key, repeat=1))
    assert result.status == "wrong", result.summary()


def test_iou_product_shows_the_text(executor, device):
    variant = find_variant("matmul", "tiled")
    result = executor.run(
        RunRequest(
            variant, {"M": 256, "N": 256, "K": 256}, device_key=device.key, input="iou", repeat=1
        )
    )
    assert result.status == "verified"
    c = result.output
    # Grey background (0.75) with dark text (0): both present, nothing else.
    values = set(float(v) for v in set(c.ravel().tolist()))
    assert values == {0.0, 0.75}
    dark = c == 0.0
    assert 0.03 < dark.mean() < 0.4
    rows = dark.any(axis=1).nonzero()[0]
    assert rows.min() > 40 and rows.max() < 216  # text in the middle band


def test_transpose_ladder_puts_the_rows_per_work_item_step_between_padded_and_fast():
    ids = [v.id for v in variants_of("transpose")]
    steps = ["naive", "tiled", "tiled-padded", "padded-rows", "fast"]
    assert [i for i in ids if i in steps] == steps


def test_matmul_ladder_ends_with_the_wave_step_after_fast_and_warp():
    ids = [v.id for v in variants_of("matmul")]
    ladder = ["naive", "tiled", "wpt", "reg2d", "warp", "fast", "wave"]
    assert [i for i in ids if i in ladder] == ladder


@pytest.mark.long
def test_fasts_unaligned_main_loop_verifies_at_unaligned_sizes(executor, device):
    """matmul/fast's third loop (UNALIGNED = 1, its default only for large unaligned
    problems such as 4097³) at small unaligned sizes, with small tiles so it builds fast."""
    variant = _unoptimised(find_variant("matmul", "fast"))
    defines = {"UNALIGNED": 1, "BM": 32, "BN": 32, "TM": 4, "TN": 4, "BK": 16}
    for size in ({"M": 33, "N": 70, "K": 51}, {"M": 40, "N": 36, "K": 50}):
        result = executor.run(
            RunRequest(variant, size, defines=defines, device_key=device.key, repeat=1)
        )
        assert result.status == "verified", f"{size}: {result.summary()}"


@pytest.mark.long
@pytest.mark.parametrize("unaligned", [0, 1, 3])
def test_waves_edge_strips_and_row_loads_verify_at_odd_sizes(executor, device, unaligned):
    """matmul/wave's strips beside the full tiles (EDGE = 1, its default where they are thin,
    as at 4097³) and its main loops for unaligned rows (UNALIGNED = 1, and 3: A by aligned
    loads shifted into local memory) at small sizes: strips of 1 to 7 rows and columns, none
    at all, a problem smaller than one tile, and K = 83 over 16-wide steps; with 32×32 tiles,
    whose builds take seconds on a CPU where 64×64 took half a minute."""
    variant = _unoptimised(find_variant("matmul", "wave"))
    defines = {
        "EDGE": 1,
        "UNALIGNED": unaligned,
        "BM": 32,
        "BN": 32,
        "TM": 4,
        "TN": 4,
        "WX": 8,
        "BK": 16,
    }
    sizes = (
        {"M": 65, "N": 35, "K": 51},
        {"M": 39, "N": 70, "K": 33},
        {"M": 32, "N": 64, "K": 20},
        {"M": 20, "N": 18, "K": 50},
        {"M": 97, "N": 131, "K": 83},
    )
    for size in sizes:
        result = executor.run(
            RunRequest(variant, size, defines=defines, device_key=device.key, repeat=1)
        )
        assert result.status == "verified", f"{size}: {result.summary()}"
        assert result.verdict is not None and result.verdict.mismatches == 0
