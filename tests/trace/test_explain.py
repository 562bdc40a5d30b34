"""Why is this element wrong: an element of a traced result explained from the trace, beside
what its reference needs, on mutants of the catalog's kernels whose first wrong input is
known by hand."""

from dataclasses import dataclass

import numpy as np
import pytest

from explorer.engine.header.catalog import find_variant, load_variant_file
from explorer.engine.record.explain import (
    anatomy_request,
    answered,
    explain_anatomy,
    explain_element,
    record_anatomy,
)
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from explorer.trace.explain import ALL_GOOD, ElementError, parse_element
from tests.conftest import TEST_KERNELS

MUTANTS = TEST_KERNELS / "explain"
MATMUL = {"M": 16, "N": 16, "K": 16}
CORRECT = {"M": 17, "N": 16, "K": 20}  # not tile multiples: the edge tiles load zeros


_TRACED: dict = {}


def request_of(device, variant, sizes, defines=None, anyway=False):
    """The trace request of a launch on random inputs."""
    run = RunRequest(
        variant, sizes, defines=defines or {}, device_key=device.key, input="random", anyway=anyway
    )
    return TraceRequest(run)


def traced(executor, device, variant, sizes, defines=None, anyway=False):
    """The trace of a launch on random inputs, traced once for the tests that share it."""
    key = (variant.path, tuple(sorted(sizes.items())), tuple(sorted((defines or {}).items())))
    if key not in _TRACED:
        request = request_of(device, variant, sizes, defines, anyway)
        run = executor.trace(request, keep_trace=True)
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


# -- the index anatomy of the first offending input -------------------------------------


@dataclass(frozen=True)
class Route:
    path: str
    sizes: dict
    defines: dict
    element: str
    steps: tuple  # the accesses of the route: load, then stored and entry through a tile
    changed: str  # text of the line the mutant changed
    shows: str  # the step whose anatomy holds the change
    access: str  # that access as written
    chains: tuple  # lines of its anatomy, {name} the line of a definition below


DEFINED = {
    "tx": "tx  = get_local_id(0)",
    "ty": "ty  = get_local_id(1)",
    "col": "col = get_group_id(0) * TS + tx",
    "t": "for (int t = 0; t < numTiles; t++)",
    "kB": "kB = t * TS + ty",
    "k": "for (int k = 0; k < TS; k++)",
    "loop": "for (int k = 0; k <= K; k++)",
    "row": "row = get_global_id(1)",
    "arguments": "__kernel void matmul_tiled(",
}

# By hand, for TS = 8 and C[3, 5]: the writing work-item is (5, 3) of group (0, 0).
ROUTES = [
    # Asub[tx][ty]: work-item (3, 0) stores A[0, 3] into Asub[3][0], the changed line.
    Route(
        "explain/tiled_a_subscripts_swapped.cl",
        MATMUL,
        {"TS": 8},
        "C[3,5]",
        ("load", "stored", "entry"),
        "Asub[tx][ty] = (row < M",
        "stored",
        "Asub[tx][ty]",
        ("tx = 3 ← get_local_id(0) at line {tx}", "ty = 0 ← get_local_id(1) at line {ty}"),
    ),
    # Asub[tx][k]: the writing work-item reads row tx = 5 of the A tile, the changed line.
    Route(
        "explain/tiled_txty_swapped.cl",
        MATMUL,
        {"TS": 8},
        "C[3,5]",
        ("load", "stored", "entry"),
        "acc += Asub[tx][k]",
        "entry",
        "Asub[tx][k]",
        ("tx = 5 ← get_local_id(0) at line {tx}", "k = 0 ← 0 at line {k}"),
    ),
    # B[kB * N + col + 1] = B[0 * 16 + 5 + 1]: work-item (5, 0) loads B[0, 6].
    Route(
        "explain/tiled_b_column_shift.cl",
        MATMUL,
        {"TS": 8},
        "C[3,5]",
        ("load", "stored", "entry"),
        "B[kB * N + col + 1]",
        "load",
        "B[kB * N + col + 1]",
        (
            "kB = 0 ← t * TS + ty at line {kB} (t = 0 ← 0 at line {t}, TS = 8, ty = 0 ← "
            "get_local_id(1) at line {ty})",
            "N = 16 ← kernel argument (line {arguments})",
            "col = 5 ← get_group_id(0) * TS + tx at line {col} (get_group_id(0) = 0, TS = 8, "
            "tx = 5 ← get_local_id(0) at line {tx})",
        ),
    ),
    # k <= K: the last pass reads A[3 * 16 + 16] = A[4, 0]; k = 16 came from k++ at the
    # loop's line after k = 15. Straight from global memory: the load alone.
    Route(
        "mutants/naive_loop_bound.cl",
        MATMUL,
        {},
        "C[3,5]",
        ("load",),
        "for (int k = 0; k <= K; k++)",
        "load",
        "A[row * K + k]",
        ("row = 3 ← get_global_id(1) at line {row}", "k = 16 ← k++ at line {loop} (k = 15)"),
    ),
]


def recorder(executor, request, trace, calls=None):
    """``record`` for ``explain_anatomy``: the anatomy build in the executor, as the command
    line runs it (``calls`` counts them)."""

    def record(lines, groups):
        if calls is not None:
            calls.append((lines, groups))
        asked = anatomy_request(request, trace)
        return executor.call(record_anatomy, asked, trace.sites, lines, groups)

    return record


@pytest.mark.parametrize("route", ROUTES, ids=lambda r: r.path.split("/")[-1])
def test_the_first_offending_input_names_the_changed_line_in_its_index_anatomy(
    executor, device, route
):
    variant = load_variant_file(str(TEST_KERNELS / route.path))
    run = traced(executor, device, variant, route.sizes, route.defines)
    request = request_of(device, variant, route.sizes, route.defines)
    plain = explain_element(run.trace, run.result, variant, route.element)
    calls = []
    explanation = explain_anatomy(
        plain, run.trace, run.anatomy, recorder(executor, request, run.trace, calls)
    )
    first, anatomy = explanation.first_offending, explanation.anatomy
    assert anatomy is not None and anatomy.recorded, explanation.text()
    steps = dict(anatomy.steps())
    assert tuple(steps) == route.steps
    for role, access in (("load", first.load), ("stored", first.stored), ("entry", first.entry)):
        if role in steps:  # each step explains the very access of the route
            shown = steps[role]
            assert (shown.line, shown.group + shown.local) == (access.line, access.work_item)
    assert len(calls) == 1 and calls[0][1] == tuple(
        (first.load.work_item[d], first.load.work_item[d] + 1) for d in range(3)
    )  # one build, over the group that loaded it
    changed = line_of(variant, route.changed)
    shown = steps[route.shows]
    lines = {
        name: line_of(variant, text) for name, text in DEFINED.items() if text in variant.source
    }
    expected = [c.format(**lines) for c in route.chains]
    assert shown.text == route.access
    assert all(c in shown.chains() for c in expected), shown.chains()
    assert shown.line == changed or any(f"line {changed}" in c for c in shown.chains())
    text = explanation.text()
    assert "Index anatomy of the accesses that brought it in:" in text
    assert all(f"      {c}" in text for c in expected)
    (report,) = [explanation.to_json()["first_offending"]["anatomy"]]
    assert report["values_recorded"] is True
    assert report[route.shows]["access"] == route.access
    assert all(c in report[route.shows]["chain"] for c in expected)
    # Asked again with the anatomy that came back: its values are read, nothing is built.
    got = recorder(executor, request, run.trace)(*calls[0])
    again = explain_anatomy(plain, run.trace, got, lambda *_: pytest.fail("built again"))
    assert again.text() == text


def test_without_values_the_static_chain_is_shown_and_says_why(executor, device):
    variant = load_variant_file(str(MUTANTS / "tiled_b_column_shift.cl"))
    run = traced(executor, device, variant, MATMUL, {"TS": 8})
    plain = explain_element(run.trace, run.result, variant, "C[3,5]")
    explanation = explain_anatomy(plain, run.trace, None, lambda *_: "the executor stopped")
    text = explanation.text()
    assert "Index anatomy: not known (values not recorded: the executor stopped)." in text
    request = request_of(device, variant, MATMUL, {"TS": 8})
    static = executor.call(
        record_anatomy, anatomy_request(request, run.trace), run.trace.sites, (), ()
    )
    assert static is not None and static.values is None  # no line asked: no build
    explanation = explain_anatomy(plain, run.trace, static, lambda *_: "the executor stopped")
    anatomy = explanation.anatomy
    assert anatomy is not None and not anatomy.recorded
    load = anatomy.load
    col = line_of(variant, DEFINED["col"])
    assert f"col ← get_group_id(0) * TS + tx at line {col}" in load.text_line()
    assert "= 5" not in load.text_line()  # no value is made up
    text = explanation.text()
    head = "  Index anatomy of the accesses that brought it in (values not recorded: the executor"
    assert head + " stopped):" in text
    assert f"    its load, B[kB * N + col + 1] at line {line_of(variant, 'col + 1]')}" in text
    assert "(static only):" in text
    # What a call gave back, as the anatomy or why there is none.
    assert answered(static) is static and answered(None) is None
    assert answered(RuntimeError("the executor crashed")) == "the executor crashed"
    assert answered({"static": "made up"}) == "the executor's answer is not an index anatomy"


def test_a_correct_element_asks_for_no_anatomy(executor, device):
    variant = find_variant("matmul", "tiled")
    run = traced(executor, device, variant, CORRECT, {"TS": 8})
    plain = explain_element(run.trace, run.result, variant, "C[16,5]")
    explanation = explain_anatomy(plain, run.trace, None, lambda *_: pytest.fail("built"))
    assert explanation.anatomy is None and "Index anatomy" not in explanation.text()
    assert explanation.to_json()["first_offending"] is None
