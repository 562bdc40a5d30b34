"""The guard an out-of-bounds finding proposes must be C that means what it says. The text of
an index part is taken without the parentheses the kernel put round it, so a part whose
operator binds looser than the comparison the guard puts after it (a mask, a conditional, a
comparison) is put back in parentheses: ``i - 1 & 63 < n`` is ``i - 1 & (63 < n)`` in C. An
index holding a comparison (``(i > 1) * 2``, ``- (i == 0)``) is bounded as a whole, never
taken apart into a "row" of truth values."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.trace.analysis.guards import guard
from explorer.trace.recorded import GLOBAL, LOCAL, BufferInfo
from tests.robustness.helpers import cli

SRC = BufferInfo("src", None, GLOBAL, 4, 64)
TILE = BufferInfo("tile", None, LOCAL, 4, 256, (16, 16))
NAMES = {"n": 64, "TS": 16}


def test_an_index_with_comparisons_is_guarded_as_a_whole_with_its_parentheses():
    """src[i - 2 + (i > 1) * 2 - (i == 0)] reached src[-3] and src[-1] (i = 0, 1): the guard
    must be false exactly there; it was `-1 + i > 1 >= 0 && i - i == 0 >= 0`, which always
    holds."""
    proposed = guard("src[i - 2 + (i > 1) * 2 - (i == 0)]", SRC, {}, -3, 61)
    assert proposed == "if (i - 2 + (i > 1) * 2 >= (i == 0))"
    # That test, as C reads it, keeps i = 2..63 and refuses i = 0 and 1.
    assert [i for i in range(64) if i - 2 + (i > 1) * 2 >= (i == 0)] == list(range(2, 64))


@pytest.mark.parametrize(
    ("text", "target", "low", "high", "expected"),
    [
        # A mask: `i - 1 & 63 < n` would test `63 < n`.
        ("src[i - 1 & 63]", SRC, 0, 64, "if ((i - 1 & 63) < n)"),
        # A conditional before `<` or `>=` would take the comparison into its last branch.
        ("src[c ? i + 1 : i]", SRC, 0, 64, "if ((c ? i + 1 : i) < n)"),
        ("src[i ? i - 1 : 0]", SRC, -1, 62, "if ((i ? i - 1 : 0) >= 0)"),
        (
            "tile[ly][lx == 15 ? 0 : lx + 1]",
            TILE,
            0,
            256,
            "if (ly < TS && (lx == 15 ? 0 : lx + 1) < TS)",
        ),
        # A difference with a comparison on its right keeps it in parentheses.
        ("src[i - (j == 0)]", SRC, -1, 63, "if (i >= (j == 0))"),
    ],
)
def test_a_part_binding_looser_than_the_test_is_in_parentheses(text, target, low, high, expected):
    assert guard(text, target, NAMES, low, high) == expected


@pytest.mark.usefixtures("fast_cli")
def test_the_finding_of_a_kernel_proposes_the_guard_that_excludes_what_it_reached():
    """truth5/signed_mix.cl line 24 reads src[i - 2 + (i > 1) * 2 - (i == 0)]: src[-3] at
    i = 0 and src[-1] at i = 1, nothing else outside the 64 elements (worked by hand)."""
    outcome = cli(
        "trace", "--kernel-file", str(Path(__file__).parent / "truth5" / "signed_mix.cl"), "--json"
    )
    report = json.loads(outcome.out)
    assert report["complete"], report
    [finding] = report["findings"]
    assert (finding["kind"], finding["line"], finding["buffer"], finding["count"]) == (
        "out-of-bounds",
        24,
        "src",
        2,
    )
    assert finding["message"].startswith("line 24 reads src[-3], src[-1] outside src")
    assert finding["message"].endswith("if (i - 2 + (i > 1) * 2 >= (i == 0))")


@pytest.mark.parametrize(
    ("text", "low", "high", "expected"),
    [
        # The pointer first, as it is mostly written: it had no guard at all, while
        # *(1 + i + src) had one.
        ("*(src + i + 1)", 0, 64, "if (i + 1 < n)"),
        ("*(src + i - 1)", -1, 62, "if (i >= 1)"),
        ("*(1 + i + src)", 0, 64, "if (1 + i < n)"),
    ],
)
def test_a_pointer_sum_is_guarded_wherever_the_buffer_stands_in_it(text, low, high, expected):
    assert guard(text, SRC, NAMES, low, high) == expected


def test_a_pointer_sum_over_whole_rows_is_guarded_by_row_and_column():
    picture = BufferInfo("src", None, GLOBAL, 4, 512)
    proposed = guard("*(src + y * w + x + 1)", picture, {"w": 32}, 0, 512)
    assert proposed == "if (y < 16 && x + 1 < w)"
