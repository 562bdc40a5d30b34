"""The mutation benchmark (benchmarks/mutations.py): its operators change what they claim to
and nothing else, and its scores can fail: an unchanged kernel is never counted as a caught
mistake, a VERIFIED mutant that changes the result is a miss, a finding the unmutated kernel
has too places nothing."""

from __future__ import annotations

import importlib.util
import sys
from dataclasses import replace
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest

SCRIPT = Path(__file__).parents[2] / "benchmarks" / "mutations.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mutations_benchmark", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


mutations = _load()

KERNEL = """/* a comment: a[i] < b, barrier(CLK_LOCAL_MEM_FENCE) */
#define AT(i) in[(i) < 0 ? 0 : (i)]
__kernel void k(const int W, const int H, __global const float* in, __global float* out)
{
    const int x = get_global_id(0), y = get_local_id(1);
    __local float tile[16][17];
    float acc[4];
    tile[y][x] = in[y * W + x];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (x < W && y < H)
        out[x * H + y] = tile[x][y] * acc[0];
}
"""


def mutants(operator: str) -> list[tuple[int, str, str]]:
    found = mutations.mutants_of(
        "test/k", KERNEL, {"size_parameters": ["W", "H"]}, [operator], per_operator=None
    )
    for m in found:  # one change, on its line, the other lines as they were
        changed = [
            n
            for n, (a, b) in enumerate(
                zip(KERNEL.split("\n"), m.source.split("\n"), strict=True), 1
            )
            if a != b
        ]
        assert changed == [m.line]
    return [(m.line, m.before, m.after) for m in found]


def test_each_operator_changes_code_only_never_comments_macros_or_declarations():
    assert mutants("off-by-one") == [
        (8, "[y]", "[(y) + 1]"),
        (8, "[x]", "[(x) + 1]"),
        (8, "[y * W + x]", "[(y * W + x) + 1]"),
        (11, "[x * H + y]", "[(x * H + y) + 1]"),
        (11, "[x]", "[(x) + 1]"),
        (11, "[y]", "[(y) + 1]"),
        (11, "[0]", "[(0) + 1]"),
    ]
    assert mutants("swap-dims") == [(5, "0", "1"), (5, "1", "0")]
    assert mutants("swap-tile") == [(8, "[y][x]", "[x][y]"), (11, "[x][y]", "[y][x]")]
    assert mutants("no-barrier") == [(9, "barrier(CLK_LOCAL_MEM_FENCE)", "(void)0")]
    assert mutants("lt-to-le") == [(10, "<", "<="), (10, "<", "<=")]
    assert mutants("swap-sizes") == [(8, "W", "H"), (10, "W", "H"), (10, "H", "W"), (11, "H", "W")]


def test_a_kernel_with_one_size_parameter_has_no_size_swap():
    assert mutations.mutants_of("test/k", KERNEL, {"size_parameters": ["W"]}, ["swap-sizes"]) == []


def test_sites_are_spread_over_the_file_when_capped():
    chosen = mutations.mutants_of("test/k", KERNEL, {}, ["off-by-one"], per_operator=3)
    assert [(m.line, m.column) for m in chosen] == [(8, 9), (11, 12), (11, 42)]


def _outcome(**fields):
    base = mutations.Outcome("m", "fam/v", "fam", "off-by-one", 3, "[i]", "[(i) + 1]")
    for name, value in fields.items():
        setattr(base, name, value)
    return base


def test_scores_count_only_mutants_that_change_the_result():
    caught = _outcome(status="wrong", change="changed", placed_by=["trace-diff"])
    missed = _outcome(mutant="missed", status="verified", change="changed")
    same = _outcome(mutant="same", status="verified", change="same")
    rounding = _outcome(mutant="rounding", status="verified", change="rounding")
    crashed = _outcome(mutant="crashed", status="crashed", change="crashed")
    scores = mutations.rates([caught, missed, same, rounding, crashed])
    assert (scores.mutants, scores.changing, scores.detected, scores.placed) == (5, 3, 2, 1)
    text = mutations.report([caught, missed, same, rounding, crashed])
    assert "read VERIFIED: 1\n- missed " in text
    assert "not placed at their line: 2" in text
    only_brackets = _outcome(status="wrong", change="changed", placed_by=["race-brackets"])
    assert mutations.rates([only_brackets]).placed == 0  # reported apart, not in the rate
    assert mutations.rates([only_brackets]).placed_with_brackets == 1


def test_a_finding_the_unmutated_kernel_has_too_places_nothing():
    finding = SimpleNamespace(kind="bank-conflict", line=3, other_lines=())
    traced = SimpleNamespace(analysis=SimpleNamespace(findings=[finding]), report_json={})
    mutant = SimpleNamespace(line=3, operator="off-by-one")

    def placed(baseline_findings):
        baseline = SimpleNamespace(findings=baseline_findings)
        return mutations.place_by_finding(
            mutations.PlacementInput(mutant, baseline, traced, None, None)
        )

    assert placed(set()) is True
    assert placed({("bank-conflict", 3)}) is False
    # Not the index anatomy's: no chain in the report, not measured rather than unplaced.
    assert (
        mutations.place_by_anatomy(mutations.PlacementInput(mutant, None, traced, None, None))
        is None
    )


def test_results_are_compared_bit_for_bit_with_rounding_apart():
    import numpy as np

    a = {"OUT": np.array([1.0, 2.0, np.nan], dtype=np.float32)}
    assert mutations.compare(a, a) == ("same", 0.0)
    nudged = {"OUT": np.array([1.0, 2.0 + 1e-6, np.nan], dtype=np.float32)}
    assert mutations.compare(nudged, a)[0] == "rounding"
    moved = {"OUT": np.array([1.0, 3.0, np.nan], dtype=np.float32)}
    assert mutations.compare(moved, a) == ("changed", 1.0)
    assert (
        mutations.compare({"OUT": np.array([1, 2], dtype=np.int32)}, {"OUT": np.array([1, 3])})[0]
        == "changed"
    )


@pytest.mark.usefixtures("on_pocl")
def test_real_mutants_of_the_naive_transpose_are_scored(executor, device):
    (variant,) = mutations.selected_variants([], ["transpose/naive"])
    bench = mutations.Bench(executor, device.key)
    baseline = bench.baseline(variant)
    assert not isinstance(baseline, str), baseline
    assert baseline.status == "verified" and baseline.deterministic
    assert baseline.sizes["WIDTH"] != baseline.sizes["HEIGHT"]  # a non-square, odd size
    assert baseline.sizes["WIDTH"] % 2 == 1
    unchanged = mutations.Mutant("transpose/naive", "none", 30, 1, "", "", variant.source)
    same = bench.run(unchanged, variant, baseline)
    assert (same.status, same.change, same.placed_by) == ("verified", "same", [])
    chosen = {
        (m.operator, m.line, m.before): m
        for _, m in mutations.all_mutants([variant], ["off-by-one"], None)
    }
    write = bench.run(chosen["off-by-one", 30, "[y * WIDTH + x]"], variant, baseline)
    assert write.status == "wrong" and write.changes_result
    assert {"finding", "trace-diff"} <= set(write.placed_by)
    assert write.first_difference_line == 30
    scores = mutations.rates([same, write])
    assert (scores.changing, scores.detected, scores.placed) == (1, 1, 1)
    # The same mutant, had its run read VERIFIED, is a miss, and the benchmark says so.
    fooled = replace(write, status="verified")
    assert mutations.rates([same, fooled]).detected == 0


@pytest.mark.usefixtures("on_pocl")
def test_index_anatomy_and_why_is_this_element_wrong_place_real_mutants(executor, device):
    (variant,) = mutations.selected_variants([], ["matmul/tiled"])
    lines = variant.source.split("\n")

    def line_of(text):
        return next(n for n, source in enumerate(lines, 1) if text in source)

    bench = mutations.Bench(executor, device.key)
    baseline = bench.baseline(variant)
    assert not isinstance(baseline, str), baseline
    chosen = {
        (m.operator, m.line, m.before): m
        for _, m in mutations.all_mutants([variant], ["swap-tile", "swap-dims"], None)
    }
    # Bsub[k][tx] read as Bsub[tx][k]: the element's first offending input came through it.
    read = line_of("acc += Asub[ty][k] * Bsub[k][tx]")
    swapped = bench.run(chosen["swap-tile", read, "[k][tx]"], variant, baseline)
    assert swapped.changes_result and swapped.status == "wrong"
    assert {"anatomy", "explain"} <= set(swapped.placed_by)
    # tx = get_local_id(1): wrong where it is defined, seen where it is used; only the chain
    # of the reported access reaches back to its line.
    tx = line_of("tx  = get_local_id(0)")
    transposed = bench.run(chosen["swap-dims", tx, "0"], variant, baseline)
    assert transposed.changes_result and transposed.first_difference_line != tx
    assert "anatomy" in transposed.placed_by
    # Said of a line in no chain (a barrier), the same run is placed by neither reader.
    elsewhere = replace(chosen["swap-tile", read, "[k][tx]"], line=line_of("barrier("))
    missed = bench.run(elsewhere, variant, baseline)
    assert missed.changes_result and missed.not_measured == []
    assert not {"anatomy", "explain"} & set(missed.placed_by)
