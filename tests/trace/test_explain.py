"""Why is this element wrong: an element of a traced result explained from the trace, beside
what its reference needs, on mutants of the catalog's kernels whose first wrong input is
known by hand."""

from dataclasses import dataclass

import numpy as np
import pytest

from explorer.engine.header.catalog import find_variant, load_variant_file
from explorer.engine.record.explain import explain_element
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from explorer.trace.explain import ALL_GOOD, ElementError, parse_element
from tests.conftest import TEST_KERNELS

MUTANTS = TEST_KERNELS / "explain"
MATMUL = {"M": 16, "N": 16, "K": 16}
CORRECT = {"M": 17, "N": 16, "K": 20}  # not tile multiples: the edge tiles load zeros


_TRACED: dict = {}


def traced(executor, device, variant, sizes, defines=None, anyway=False):
    """The trace of a launch on random inputs, traced once for the tests that share it."""
    key = (variant.path, tuple(sorted(sizes.items())), tuple(sorted((defines or {}).items())))
    if key not in _TRACED:
        request = RunRequest(
            variant,
            sizes,
            defines=defines or {},
            device_key=device.key,
            input="random",
            anyway=anyway,
        )
        run = executor.trace(TraceRequest(request), keep_trace=True)
        assert run.trace is not None, run.result.summary()
        _TRACED[key] = run
    return _TRACED[key]


def line_of(variant, text):
    """The source line holding ``text`` (once), as the trace numbers lines."""
    lines = [i + 1 for i, line in enumerate(variant.source.splitlines()) if text in line]
    assert len(lines) == 1, (text, lines)
    return lines[0]


def cells(mask):
    return {tuple(int(v) for v in w) for w in np.argwhere(mask)}


@dataclass(frozen=True)
class Mutant:
    file: str
    sizes: dict
    defines: dict
    element: str
    first: tuple  # the first input that should not be there
    loaded_at: str  # text of the line that loads it
    stored: str  # the local element it went through ("" for none)
    entered_at: str  # text of the line where it entered the writing work-item
    missing: dict  # input → the needed elements that never arrived


# By hand, for TS = 8 and C[3, 5] (group (0, 0), tx = 5, ty = 3): the first read of the inner
# product is Asub[ty][0], then Bsub[0][tx].
MUTANTS_KNOWN = [
    # Asub[tx][ty] = A[row, t*TS + tx]: Asub[3][0] holds what work-item (3, 0) fetched, A[0, 3].
    Mutant(
        "tiled_a_subscripts_swapped.cl",
        MATMUL,
        {"TS": 8},
        "C[3,5]",
        ("A", (0, 3)),
        "Asub[tx][ty] = (row < M",
        "Asub[3][0]",
        "acc += Asub[ty][k]",
        {"A": {(3, k) for k in range(16) if k not in (3, 11)}},
    ),
    # Reading Asub[tx][k] * Bsub[k][ty]: work-item (5, 3) reads row 5 of the A tile first.
    Mutant(
        "tiled_txty_swapped.cl",
        MATMUL,
        {"TS": 8},
        "C[3,5]",
        ("A", (5, 0)),
        "Asub[ty][tx] = (row < M",
        "Asub[5][0]",
        "acc += Asub[tx][k]",
        {"A": {(3, k) for k in range(16)}, "B": {(k, 5) for k in range(16)}},
    ),
    # B[kB * N + col + 1]: Bsub[0][5] holds B[0, 6].
    Mutant(
        "tiled_b_column_shift.cl",
        MATMUL,
        {"TS": 8},
        "C[3,5]",
        ("B", (0, 6)),
        "Bsub[ty][tx] = (kB < K && col + 1 < N)",
        "Bsub[0][5]",
        "acc += Asub[ty][k]",
        {"B": {(k, 5) for k in range(16)}},
    ),
    # OUT[oy][ox] = tile[ly][lx] = IN[3, 5] for OUT[3, 5], which needs IN[5, 3].
    Mutant(
        "transpose_untransposed_read.cl",
        {"WIDTH": 16, "HEIGHT": 16},
        {"TILE": 8},
        "OUT[3,5]",
        ("IN", (3, 5)),
        "tile[ly][lx] = IN[y * WIDTH + x]",
        "tile[3][5]",
        "OUT[oy * HEIGHT + ox] = tile[ly][lx]",
        {"IN": {(5, 3)}},
    ),
    # A custom kernel whose reference is an einsum: its needs come from the expression.
    Mutant(
        "custom_einsum_b_shift.cl",
        {},
        {},
        "C[2][4]",
        ("B", (0, 5)),
        "acc += A[row * k + i] * B[i * n + (col + 1) % n]",
        "",
        "acc += A[row * k + i] * B[i * n + (col + 1) % n]",
        {"B": {(k, 4) for k in range(9)}},
    ),
]


@pytest.mark.parametrize("mutant", MUTANTS_KNOWN, ids=lambda m: m.file)
def test_the_first_input_that_should_not_be_there_is_named_with_its_line(executor, device, mutant):
    variant = load_variant_file(str(MUTANTS / mutant.file))
    run = traced(executor, device, variant, mutant.sizes, mutant.defines)
    explanation = explain_element(run.trace, run.result, variant, mutant.element)
    first = explanation.first_offending
    assert first is not None, explanation.text()
    assert (first.buffer, first.where) == mutant.first
    assert first.load.line == line_of(variant, mutant.loaded_at)
    assert first.load.buffer == mutant.first[0] and first.load.op == "read"
    if mutant.stored:
        assert first.stored is not None and first.stored.element_text == mutant.stored
        assert first.tile_step == 0
    else:
        assert first.stored is None
    assert first.entry.line == line_of(variant, mutant.entered_at)
    assert {name: cells(mask) for name, mask in explanation.missing.items()} == mutant.missing
    name = mutant.first[0]
    text = explanation.text()
    assert f"First offending input: {name}[{', '.join(map(str, mutant.first[1]))}]" in text
    assert f"line {first.load.line}" in text


def test_a_wrong_input_of_a_later_tile_names_that_step(executor, device):
    variant = load_variant_file(str(MUTANTS / "tiled_b_column_shift.cl"))
    run = traced(executor, device, variant, MATMUL, {"TS": 8})
    explanation = explain_element(run.trace, run.result, variant, "C[3,5]")
    extra = {(i.buffer, i.where): i for i in explanation.offending}
    assert set(extra) == {("B", (k, 6)) for k in range(16)}
    later = extra[("B", (8, 6))]
    assert later.tile_step == 1
    assert later.load.phase > explanation.first_offending.load.phase


def test_a_correct_kernel_explains_as_all_needed_inputs_nothing_else(executor, device):
    variant = find_variant("matmul", "tiled")
    run = traced(executor, device, variant, CORRECT, {"TS": 8})
    explanation = explain_element(run.trace, run.result, variant, "C[16,5]")
    assert explanation.verdict == ALL_GOOD
    assert cells(explanation.inflow_masks["A"]) == {(16, k) for k in range(20)}
    assert cells(explanation.inflow_masks["B"]) == {(k, 5) for k in range(20)}
    writer = explanation.provenance.stores[0]
    assert writer.work_item == (0, 2, 0, 5, 0, 0)  # row 16 is row 0 of the third row of groups
    assert f"Verdict: {ALL_GOOD}." in explanation.text()
    report = explanation.to_json()
    assert report["verdict"] == ALL_GOOD and report["first_offending"] is None


def test_an_element_outside_the_result_or_of_no_result_is_refused_by_name(executor, device):
    variant = find_variant("matmul", "tiled")
    run = traced(executor, device, variant, CORRECT, {"TS": 8})
    with pytest.raises(ElementError, match=r"C\[17, 0\] is outside C, of shape 17×16"):
        explain_element(run.trace, run.result, variant, "C[17,0]")
    with pytest.raises(ElementError, match="A is not a result"):
        explain_element(run.trace, run.result, variant, "A[1,1]")
    assert parse_element("3, 5") == (None, (3, 5))
    assert parse_element("OUT[7]") == ("OUT", (7,))
    with pytest.raises(ElementError, match="NAME"):
        parse_element("C(3,5)")


def test_a_read_outside_its_buffer_that_flowed_in_is_the_first_offending_input(executor, device):
    """Loading the tile of A one tile too far along K: at 17³ (run anyway) C[16, 16] gets
    A[16, 16] and then elements past the end of A, which the trace skipped."""
    variant = load_variant_file(str(TEST_KERNELS / "tiled_off_by_one.cl"))
    run = traced(executor, device, variant, {"M": 17, "N": 17, "K": 17}, anyway=True)
    explanation = explain_element(run.trace, run.result, variant, "C[16,16]")
    first = explanation.first_offending
    assert first is not None and first.outside
    assert (first.buffer, first.where) == ("A", (16 * 17 + 16 + 1,))  # one past A[16, 16]
    assert first.load.line == line_of(variant, "As[ty][tx] = A[row * K + (t + 1) * 16 + tx]")
    assert first.stored.element_text == "As[0][1]"
    text = explanation.text()
    assert f"First offending input: A[{16 * 17 + 17}] (outside A), loaded at line" in text
    assert "15 read(s) outside A" in text
