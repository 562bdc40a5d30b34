"""Traces recorded on the device, and the findings drawn from them (known answers)."""

import numpy as np
import pytest

from explorer.engine.header.catalog import catalog, find_variant, load_variant_file
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from tests.conftest import TEST_KERNELS

BAD = {"race", "uninitialized", "out-of-bounds", "barrier-divergence"}


def traced(executor, device, variant, sizes, local=None, **kw):
    request = TraceRequest(
        RunRequest(variant, sizes, local=local, device_key=device.key, input="random"), **kw
    )
    result = executor.trace(request, keep_trace=True)
    assert result.analysis is not None, result.result.summary()
    return result


def kinds(result, kind):
    return [f for f in result.analysis.findings if f.kind == kind]


def site(result, line, buffer):
    matches = [s for s in result.analysis.sites if s.line == line and s.buffer == buffer]
    assert matches, [(s.line, s.buffer) for s in result.analysis.sites]
    return matches[0]


def test_tiling_cuts_global_loads_per_element_from_64_to_4(executor, device):
    sizes = {"M": 64, "N": 64, "K": 64}
    naive = traced(executor, device, find_variant("matmul", "naive"), sizes, (16, 16))
    tiled = traced(
        executor,
        device,
        find_variant("matmul", "tiled"),
        sizes,
        (16, 16),
    )
    for buffer in ("A", "B"):
        assert naive.analysis.loads_per_element[buffer] == {"min": 64, "max": 64, "mean": 64}
        assert tiled.analysis.loads_per_element[buffer] == {"min": 4, "max": 4, "mean": 4}


def test_transpose_bank_conflicts_vanish_with_the_padding_column(executor, device):
    sizes = {"WIDTH": 64, "HEIGHT": 64}
    plain = traced(executor, device, find_variant("transpose", "tiled"), sizes)
    padded = traced(executor, device, find_variant("transpose", "tiled-padded"), sizes)
    worst = {
        r: max(
            s.bank_conflict_degree
            for s in x.analysis.sites
            if s.space == "local" and s.op == "read"
        )
        for r, x in (("plain", plain), ("padded", padded))
    }
    assert worst == {"plain": 32, "padded": 1}


def test_naive_transpose_reads_4_sectors_and_writes_32(executor, device):
    result = traced(
        executor, device, find_variant("transpose", "naive"), {"WIDTH": 256, "HEIGHT": 256}
    )
    reads = [s for s in result.analysis.sites if s.buffer == "IN"]
    writes = [s for s in result.analysis.sites if s.buffer == "OUT"]
    assert [s.sectors_per_request for s in reads] == [4]
    assert [s.sectors_per_request for s in writes] == [32]


def test_warp_synchronous_reduction_races_at_its_lines(executor, device):
    variant = find_variant("matvec", "nvidia-coalesced3")
    result = traced(executor, device, variant, {"WIDTH": 1100, "HEIGHT": 8}, (256,))
    races = kinds(result, "race")
    assert races
    lines = {f.line for f in races}
    p_lines = {i + 1 for i, text in enumerate(variant.source.splitlines()) if "p[0] += p[" in text}
    assert lines & p_lines
    clean = traced(
        executor,
        device,
        find_variant("matvec", "nvidia-coalesced2"),
        {"WIDTH": 1100, "HEIGHT": 8},
        (256,),
    )
    assert not {f.kind for f in clean.analysis.findings} & BAD


def test_seed004_mem_fence_race_and_uninitialised_sum(executor, device):
    local_vector = traced(
        executor, device, find_variant("rowdot", "seed004-local-vector"), {"D": 1000}
    )
    assert any(f.buffer == "vectCopy" for f in kinds(local_vector, "race"))
    group_row = traced(
        executor, device, find_variant("rowdot", "seed004-group-row"), {"D": 1000}, groups=((0, 4),)
    )
    uninit = kinds(group_row, "uninitialized")
    assert any(f.buffer == "sum" for f in uninit)


def test_missing_second_barrier_is_a_race(executor, device):
    variant = load_variant_file(TEST_KERNELS / "tiled_no_second_barrier.cl")
    result = traced(executor, device, variant, {"M": 32, "N": 32, "K": 64})
    races = kinds(result, "race")
    assert races and {f.buffer for f in races} <= {"As", "Bs"}


def test_off_by_one_tile_index_is_out_of_bounds_at_its_line_without_a_crash(executor, device):
    variant = load_variant_file(TEST_KERNELS / "tiled_off_by_one.cl")
    line = next(i + 1 for i, t in enumerate(variant.source.splitlines()) if "(t + 1)" in t)
    result = traced(executor, device, variant, {"M": 32, "N": 32, "K": 32})
    oob = kinds(result, "out-of-bounds")
    assert [f.line for f in oob] == [line]
    assert oob[0].buffer == "A" and oob[0].count > 0
    assert result.result.status == "wrong"  # it ran to the end: no crash


CATALOG_SIZES = {
    "matmul": {"M": 48, "N": 32, "K": 64},
    "transpose": {"WIDTH": 70, "HEIGHT": 33},
    "matvec": {"WIDTH": 300, "HEIGHT": 9},
    "rowdot": {"D": 1000},
    "stencil": {"WIDTH": 67, "HEIGHT": 45},
    "histogram": {"VALUES": 1001, "BINS": 17},
}


@pytest.mark.parametrize(
    "variant", [v for v in catalog() if not v.bug], ids=lambda v: v.qualified_id
)
def test_every_correct_catalog_variant_is_clean_and_computes_the_same(executor, device, variant):
    result = traced(executor, device, variant, CATALOG_SIZES[variant.family])
    assert result.result.status == "verified", variant.qualified_id
    bad = {f.kind for f in result.analysis.findings} & BAD
    assert not bad, (variant.qualified_id, result.analysis.findings)
    assert result.report_json["complete"], variant.qualified_id


def test_dispatch_order_names_every_group_once(executor, device):
    result = traced(
        executor, device, find_variant("matmul", "tiled"), {"M": 64, "N": 48, "K": 16}, (16, 16)
    )
    order = result.report_json["dispatch_order"]
    assert sorted(map(tuple, order)) == [(x, y, 0) for x in range(3) for y in range(4)]


def test_budget_traces_a_window_around_the_chosen_group(executor, device):
    variant = find_variant("matmul", "tiled")
    full = traced(executor, device, variant, {"M": 128, "N": 128, "K": 16}, (16, 16))
    per_group = full.report_json["records"] // 64
    small = traced(
        executor,
        device,
        variant,
        {"M": 128, "N": 128, "K": 16},
        (16, 16),
        center=(5, 5, 0),
        budget_bytes=per_group * 8 * 9,  # nine groups' records of 8 bytes: no value plane
        values=False,
    )
    groups = [tuple(g) for g in small.report_json["groups_traced"]]
    assert len(groups) == 9 and (5, 5, 0) in groups
    assert all(abs(x - 5) <= 1 and abs(y - 5) <= 1 for x, y, _ in groups)
    ranges = traced(
        executor, device, variant, {"M": 128, "N": 128, "K": 16}, (16, 16), groups=((0, 2), (6, 8))
    )
    assert sorted(tuple(g) for g in ranges.report_json["groups_traced"]) == [
        (0, 6, 0),
        (0, 7, 0),
        (1, 6, 0),
        (1, 7, 0),
    ]


@pytest.mark.parametrize("family", ["matmul"])
def test_trace_cli_json_contract(family):
    import json
    import subprocess
    import sys

    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "explorer",
            "trace",
            "--family",
            family,
            "--variant",
            "tiled",
            "--size",
            "32",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert set(data) == {
        "complete",
        "groups_traced",
        "records",
        "findings",
        "sites",
        "loads_per_element",
        "dispatch_order",
        "outside_constraints",
        "build_log",
        "status",
        "not_checked_reason",
        "explained_by",
        "groups",
    }
    assert data["status"] == "verified" and data["not_checked_reason"] is None
    assert data["explained_by"] == []  # nothing wrong to explain
    assert data["outside_constraints"] == [] and data["groups"] == []
    assert data["build_log"] is None  # the compiler's warnings: the catalog's kernels have none
    assert data["complete"] is True and data["records"] > 0
    assert np.isclose(data["loads_per_element"]["A"]["mean"], 2)
