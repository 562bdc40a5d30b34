"""``trace --explain ELEMENT``: why an element of the result is wrong, in text and JSON."""

import json
from pathlib import Path

import pytest

from tests.conftest import TEST_KERNELS
from tests.robustness.helpers import cli as explorer

SHIFTED = str(TEST_KERNELS / "explain" / "tiled_b_column_shift.cl")
LAUNCH = ("--size", "16", "--define", "TS=8", "--local", "8x8", "--input", "random")


def line_of(text):
    """The line of the shifted kernel holding ``text``."""
    lines = Path(SHIFTED).read_text().splitlines()
    return next(i + 1 for i, source in enumerate(lines) if text in source)


@pytest.mark.usefixtures("fast_cli")
def test_the_first_offending_input_is_named_with_its_line_in_text_and_json():
    out = explorer("trace", "--kernel-file", SHIFTED, *LAUNCH, "--explain", "C[3,5]")
    assert out.code == 0, out.err
    text = out.out.split("\nC[3, 5] = ", 1)[1]
    line = line_of("B[kB * N + col + 1]")
    assert "The reference needs: A[3, 0:16] (16 elements); B[0:16, 5] (16 elements)." in text
    assert "Should not be there: 16 element(s) of B: B[0, 6], B[1, 6]" in text
    assert "Never arrived: B[0:16, 5] (16 elements)." in text
    assert f"First offending input: B[0, 6], loaded at line {line} `B[kB * N + col + 1]`" in text
    # Its index anatomy, with the values work-item (5, 0) used: B[0 * 16 + 5 + 1].
    col = line_of("col = get_group_id(0) * TS + tx")
    tx = line_of("tx  = get_local_id(0)")
    anatomy = text[text.index("Index anatomy of the accesses that brought it in:") :]
    assert f"    its load, B[kB * N + col + 1] at line {line}, work-item (0, 0, 0)/(5, 0, 0):" in (
        anatomy
    )
    assert (
        f"      col = 5 ← get_group_id(0) * TS + tx at line {col} (get_group_id(0) = 0, TS = 8, "
        f"tx = 5 ← get_local_id(0) at line {tx})"
    ) in anatomy
    assert "    its read by the writing work-item, Bsub[k][tx] at line" in anatomy
    out = explorer("trace", "--kernel-file", SHIFTED, *LAUNCH, "--explain", "C[3][5]", "--json")
    assert out.code == 0, out.err
    (explained,) = json.loads(out.out)["explain"]
    first = explained["first_offending"]
    assert (first["buffer"], first["element"], first["load"]["line"]) == ("B", [0, 6], line)
    assert first["stored"]["buffer"] == "Bsub" and first["tile_step"] == 0
    anatomy = first["anatomy"]
    assert anatomy["values_recorded"] is True and anatomy["note"] is None
    load = anatomy["load"]
    assert (load["line"], load["access"]) == (line, "B[kB * N + col + 1]")
    assert {t["text"]: t["value"] for t in load["terms"]} == {"kB": "0", "N": "16", "col": "5"}
    assert load["work_item"] == {"group": [0, 0, 0], "local": [5, 0, 0]}
    assert (anatomy["stored"]["access"], anatomy["entry"]["access"]) == (
        "Bsub[ty][tx]",
        "Bsub[k][tx]",
    )
    assert anatomy["entry"]["work_item"]["local"] == [5, 3, 0]  # the writing work-item
    assert explained["missing"] == {"B": [[k, 5] for k in range(16)]}
    assert explained["text"].startswith("C[3, 5] = ")


@pytest.mark.usefixtures("fast_cli")
def test_an_element_outside_the_result_exits_2_with_its_reason():
    out = explorer(
        "trace", "--family", "matmul", "--variant", "tiled", *LAUNCH, "--explain", "C[16,2]"
    )
    assert out.code == 2
    assert "--explain C[16, 2] is outside C, of shape 16×16" in out.out
    out = explorer("trace", "--family", "matmul", "--variant", "tiled", "--explain", "C(1)")
    assert out.code == 2
    assert "write an element as NAME[i, j]" in out.err + out.out
