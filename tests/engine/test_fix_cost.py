"""Measure the fix: a cost finding's counterpart, timed beside the kernel on the device."""

import dataclasses
import json

import pytest

from explorer.engine.header.catalog import CatalogError, catalog, find_variant, parse_variant
from explorer.engine.measure.bench import bench
from explorer.engine.measure.fix_cost import FixCost, measure_fix, offer_fix
from explorer.engine.records import RunRequest
from tests.test_cli import cli

HEADER = """/*---
name = "t"
family = "transpose"
kernel = "k"
args = ["WIDTH", "HEIGHT", "IN", "OUT"]
global = ["WIDTH", "HEIGHT"]
local = ["TILE", "TILE"]
[defines]
TILE = 16
{extra}
---*/
"""


def test_every_counterpart_in_the_catalog_names_a_variant_of_its_family():
    named = [v for v in catalog() if v.counterpart is not None]
    assert {v.qualified_id for v in named} >= {"transpose/tiled", "transpose/naive"}
    for v in named:
        assert v.counterpart.variant, v.qualified_id
        assert find_variant(v.family, v.counterpart.variant) != v


def test_a_counterpart_can_be_this_kernel_with_another_define_or_local_size():
    extra = '[counterpart]\ndefines = { TILE = 32 }\nlocal = [32, 32]\nwhy = "a wider tile"'
    variant = parse_variant(HEADER.format(extra=extra), "t.cl")
    assert variant.counterpart.defines == (("TILE", 32),)
    offer = offer_fix(
        RunRequest(variant, {"WIDTH": 64, "HEIGHT": 64}, defines={"TILE": 16}), "uncoalesced"
    )
    assert offer is not None
    assert offer.fix.variant is variant
    assert offer.fix.defines == {"TILE": 32} and offer.fix.local == (32, 32)
    assert offer.why == "a wider tile"


@pytest.mark.parametrize(
    "extra",
    ["[counterpart]\ndefines = { NOPE = 1 }", "[counterpart]\nlocal = [0]", "[counterpart]\n"],
)
def test_a_counterpart_that_cannot_be_run_is_refused_with_the_file_named(extra):
    with pytest.raises(CatalogError, match=r"t\.cl: counterpart"):
        parse_variant(HEADER.format(extra=extra), "t.cl")


def test_only_cost_findings_of_a_kernel_that_names_a_counterpart_are_offered_a_fix():
    tiled = RunRequest(find_variant("transpose", "tiled"), {"WIDTH": 64, "HEIGHT": 64})
    assert offer_fix(tiled, "race") is None
    offer = offer_fix(tiled, "bank-conflict")
    assert offer is not None and offer.fix.variant.id == "tiled-padded"
    assert offer.fix.sizes == tiled.sizes
    padded = RunRequest(find_variant("transpose", "tiled-padded"), {"WIDTH": 64, "HEIGHT": 64})
    assert offer_fix(padded, "bank-conflict") is None


def test_the_fix_is_timed_alternately_with_the_original_on_the_same_device(executor, device):
    request = RunRequest(
        find_variant("transpose", "tiled"),
        {"WIDTH": 96, "HEIGHT": 64},
        device_key=device.key,
        repeat=3,
    )
    offer = offer_fix(request, "bank-conflict")
    order = [r.variant.id for r in offer.requests(2)]
    assert order == ["tiled", "tiled-padded", "tiled", "tiled-padded"]
    cost = measure_fix(executor, offer, rounds=2)
    assert cost.device == device.name
    assert cost.variant == "transpose/tiled-padded"
    # Medians of every sample of each side; the ratio says which is faster, whatever the
    # device (on a CPU a bank conflict costs nothing: no speed-up is asserted).
    assert cost.original_ms > 0 and cost.fix_ms > 0
    assert cost.time_ratio == pytest.approx(cost.original_ms / cost.fix_ms)
    assert len(cost.round_ratios) == 2
    assert device.name in cost.sentence() and "padding the tile makes it" in cost.sentence()


def test_a_fix_that_does_not_run_gives_no_ratio_and_says_why(executor, device):
    request = RunRequest(
        find_variant("transpose", "tiled"), {"WIDTH": 64, "HEIGHT": 64}, device_key=device.key
    )
    offer = offer_fix(request, "bank-conflict")
    broken = dataclasses.replace(offer, fix=dataclasses.replace(offer.fix, local=(5, 3)))
    cost = measure_fix(executor, broken, rounds=1)
    assert isinstance(cost, FixCost)
    assert cost.time_ratio is None and "the fix did not verify" in cost.note
    assert "not measured" in cost.sentence()


@pytest.mark.usefixtures("fast_cli")
def test_trace_json_puts_the_measured_ratio_beside_the_finding():
    done = cli(
        "trace", "--family", "transpose", "--variant", "tiled", "--size", "64",
        "--measure-fix", "--json", "--repeat", "2",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    conflicts = [f for f in report["findings"] if f["kind"] == "bank-conflict"]
    assert conflicts
    fix = conflicts[0]["fix"]
    assert fix["variant"] == "transpose/tiled-padded"
    assert fix["time_ratio"] == pytest.approx(fix["original_ms"] / fix["fix_ms"])
    assert all("fix" not in f for f in report["findings"] if f["kind"] == "coverage")


def test_a_sweep_carries_trace_figures_at_every_point(executor, device):
    records = bench(
        executor,
        [find_variant("transpose", "tiled")],
        [{"WIDTH": 64, "HEIGHT": 64}],
        device.key,
        repeat=1,
        sweep={"local": [(8, 8), (16, 16)], "TILE": [8, 16]},
        metric="bank-degree",
        device_name=device.name,
    )
    rows = {(r["sweep"]["local"], r["sweep"]["TILE"]): r for r in records if r.get("sweep")}
    # An unpadded TILE-wide column read: TILE words apart, a TILE/32-of-a-bank conflict.
    assert rows[("8x8", 8)]["bank_degree"] == pytest.approx(2.0)
    assert rows[("16x16", 16)]["bank_degree"] == pytest.approx(8.0)
    assert rows[("8x8", 16)]["status"] == "refused" and rows[("8x8", 16)]["bank_degree"] is None
    assert rows[("16x16", 16)]["sectors_per_request"] is not None


@pytest.mark.usefixtures("fast_cli")
def test_bench_metric_sectors_prints_the_figure_per_point():
    done = cli(
        "bench", "--family", "transpose", "--variants", "naive,padded-rows", "--sizes", "64",
        "--repeat", "1", "--sweep", "local=32x8", "--metric", "sectors", "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = {r["variant"]: r for r in map(json.loads, done.stdout.splitlines())}
    assert rows["naive"]["sectors_per_request"] == pytest.approx(32.0)
    assert rows["padded-rows"]["sectors_per_request"] == pytest.approx(4.0)
