"""Run anyway: a configuration that only the kernel's own constraints refuse may be launched,
marked as outside them; a device's or the memory's refusal never may."""

import json
from dataclasses import replace

import pytest

from explorer.engine.header.catalog import find_variant
from explorer.engine.launch.plan import LaunchPlan, plan
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import Refusal, RunRequest, result_record

TILE_32 = {"TILE": 32}
SIZES = {"WIDTH": 64, "HEIGHT": 64}


def test_a_refusal_by_the_kernels_constraints_alone_may_be_overridden(device):
    variant = find_variant("transpose", "tiled")
    refused = plan(variant, SIZES, (16, 16), TILE_32, device)
    assert isinstance(refused, Refusal) and refused.overridable
    launch = plan(variant, SIZES, (16, 16), TILE_32, device, anyway=True)
    assert isinstance(launch, LaunchPlan)
    assert launch.outside == (
        "L0 == TILE (false for L0=16, TILE=32)",
        "L1 == TILE (false for L1=16, TILE=32)",
    )
    within = plan(variant, SIZES, (32, 32), TILE_32, device, anyway=True)
    assert isinstance(within, LaunchPlan) and within.outside == ()


def test_a_refusal_by_the_device_is_never_overridable(device):
    variant = find_variant("matmul", "seed000-naive")
    too_big = (device.max_work_group_size * 2, 1)  # breaks M % L0 == 0 and the device's limit
    refused = plan(variant, {"M": 100, "N": 100, "K": 100}, too_big, {}, device)
    assert isinstance(refused, Refusal) and not refused.overridable
    anyway = plan(variant, {"M": 100, "N": 100, "K": 100}, too_big, {}, device, anyway=True)
    assert isinstance(anyway, Refusal) and str(device.max_work_group_size) in anyway.reason
    unknown_define = plan(find_variant("transpose", "tiled"), SIZES, None, {"TILE": 12}, device)
    assert isinstance(unknown_define, Refusal) and not unknown_define.overridable


def test_a_run_anyway_shows_the_bug_and_is_marked_outside_the_constraints(executor, device):
    request = RunRequest(
        find_variant("transpose", "tiled"), SIZES, (16, 16), TILE_32, device.key, input="iou"
    )
    refused = executor.run(request)
    assert refused.status == "refused" and refused.refused.overridable
    result = executor.run(replace(request, anyway=True))
    # A 16×16 group fills a quarter of its 32×32 tile: three quarters of OUT stay unwritten.
    assert result.status == "wrong"
    assert result.verdict.not_a_number == 64 * 64 * 3 // 4
    assert "outside the kernel's constraints: L0 == TILE" in result.summary()
    assert result_record(result)["outside_constraints"][0].startswith("L0 == TILE")
    assert (
        result_record(executor.run(replace(request, local=(32, 32))))["outside_constraints"] == []
    )


def test_a_trace_anyway_carries_the_mark(executor, device):
    request = RunRequest(
        find_variant("transpose", "tiled"), SIZES, (16, 16), TILE_32, device.key, input="iou"
    )
    traced = executor.trace(TraceRequest(replace(request, anyway=True)))
    assert traced.analysis is not None
    assert traced.result.outside_constraints


@pytest.mark.usefixtures("fast_cli")
def test_run_and_trace_anyway_on_the_command_line():
    from tests.test_cli import cli as explorer

    selection = ["--family", "transpose", "--variant", "tiled", "--size", "64"]
    selection += ["--local", "16x16", "--define", "TILE=32"]
    out = explorer("run", *selection)
    assert out.returncode == 3
    assert "--anyway runs it outside them" in out.stdout
    out = explorer("run", *selection, "--anyway", "--json")
    assert out.returncode == 1, out.stderr
    record = json.loads(out.stdout)
    assert record["status"] == "wrong" and len(record["outside_constraints"]) == 2
    out = explorer("trace", *selection, "--anyway", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["outside_constraints"]
    # The device's limit is never overridden.
    out = explorer("run", "--family", "matmul", "--variant", "naive", "--size", "64",
                   "--local", "4096x4096", "--anyway")  # fmt: skip
    assert out.returncode == 3 and "--anyway" not in out.stdout
