"""Every catalog variant against numpy on the test device, at tile and non-tile sizes."""

import pytest

from explorer.engine.catalog import catalog
from explorer.engine.ndrange import plan
from explorer.engine.records import Refusal, RunRequest

SQUARE = (1, 17, 100, 257)
EXTRA = {
    "matmul": [{"M": 64, "N": 48, "K": 80}, {"M": 33, "N": 7, "K": 130}],
    "transpose": [
        {"WIDTH": 3000, "HEIGHT": 1000},
        {"WIDTH": 17, "HEIGHT": 5},
        {"WIDTH": 48, "HEIGHT": 256},  # whole 64-byte lines of OUT: cpu-blocked's fast path
    ],
    "matvec": [{"WIDTH": 1100, "HEIGHT": 300}, {"WIDTH": 17, "HEIGHT": 5}],
    "rowdot": [{"D": 1000}],
}
ALLOWED_FALLBACK = {
    "matmul": [{"M": 64, "N": 64, "K": 64}, {"M": 256, "N": 256, "K": 256}],
    "transpose": [{"WIDTH": 64, "HEIGHT": 64}],
    "matvec": [{"WIDTH": 256, "HEIGHT": 256}],
    "rowdot": [{"D": 1000}],
}


def _sizes(variant, device):
    from explorer.families import FAMILIES

    names = FAMILIES[variant.family].size_names
    candidates = [dict.fromkeys(names, n) for n in SQUARE] + EXTRA[variant.family]
    runnable = [
        s for s in candidates if not isinstance(plan(variant, s, None, {}, device), Refusal)
    ]
    return runnable or ALLOWED_FALLBACK[variant.family]


CORRECT = [v for v in catalog() if not v.bug]
BUGGY = [v for v in catalog() if v.bug]


@pytest.mark.parametrize("variant", CORRECT, ids=lambda v: v.qualified_id)
def test_correct_variant_is_verified_at_every_allowed_size(executor, device, variant):
    sizes = _sizes(variant, device)
    assert len(sizes) >= 1
    for size in sizes:
        result = executor.run(
            RunRequest(variant, size, device_key=device.key, repeat=2, input="random")
        )
        assert result.status == "verified", f"{size}: {result.summary()}"


@pytest.mark.parametrize("variant", BUGGY, ids=lambda v: v.qualified_id)
def test_gallery_bug_gives_a_verdict_and_is_caught_on_pocl(executor, device, on_pocl, variant):
    size = _sizes(variant, device)[-1]
    result = executor.run(RunRequest(variant, size, device_key=device.key, repeat=2))
    assert result.status in ("verified", "wrong"), result.summary()
    assert result.verdict is not None
    if on_pocl and variant.qualified_id in POCL_WRONG:
        assert result.status == "wrong", result.summary()
        assert result.verdict.mismatches > 0


POCL_WRONG = {"matvec/nvidia-coalesced3", "rowdot/seed004-local-vector", "rowdot/seed004-group-row"}


def test_iou_product_shows_the_text(executor, device):
    from explorer.engine.catalog import find_variant

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
