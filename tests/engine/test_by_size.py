"""A header's [[by_size]] rules: defaults chosen by the problem's size, checked when the file
is read, used by runs and traces alike, and overridden by the user's own -D."""

import dataclasses
from pathlib import Path

import pytest

from explorer.cli.variants import variant_json
from explorer.engine.header.catalog import (
    CatalogError,
    find_variant,
    load_variant_file,
    parse_variant,
)
from explorer.engine.launch.plan import LaunchPlan, plan
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest

# The transpose is right only where RIGHT is 1: the default is 0, and the rule sets 1 for
# inputs wider than 8, so the result shows which defines the build received.
SOURCE = """/*---
name = "Right only when wide"
family = "transpose"
kernel = "t"
args = ["WIDTH", "HEIGHT", "IN", "OUT"]
global = ["WIDTH", "HEIGHT"]
local = ["8", "8"]
[defines]
RIGHT = 0
[allowed]
RIGHT = [0, 1]
{rules}
[about]
text = "A transpose that is right only when built with RIGHT = 1."
---*/
__kernel void t(const int WIDTH, const int HEIGHT, const __global float* IN,
                __global float* OUT)
{{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x < WIDTH && y < HEIGHT)
        OUT[x * HEIGHT + y] = RIGHT ? IN[y * WIDTH + x] : -1.0f;
}}
"""
WIDE = '[[by_size]]\nwhen = "WIDTH > 8"\nRIGHT = 1'


def _variant(tmp_path: Path, rules: str = WIDE):
    path = tmp_path / "by_size.cl"
    path.write_text(SOURCE.format(rules=rules))
    return load_variant_file(path)


def test_the_rule_that_holds_chooses_the_defines_of_a_run(tmp_path, executor, device):
    variant = _variant(tmp_path)
    wide = executor.run(RunRequest(variant, {"WIDTH": 16, "HEIGHT": 8}, device_key=device.key))
    assert wide.status == "verified", wide.summary()
    narrow = executor.run(RunRequest(variant, {"WIDTH": 8, "HEIGHT": 8}, device_key=device.key))
    assert narrow.status == "wrong", narrow.summary()


def test_the_users_define_wins_over_the_rule(tmp_path, executor, device):
    variant = _variant(tmp_path)
    request = RunRequest(
        variant, {"WIDTH": 16, "HEIGHT": 8}, defines={"RIGHT": 0}, device_key=device.key
    )
    assert executor.run(request).status == "wrong"


def test_the_trace_builds_with_the_same_defines(tmp_path, executor, device):
    request = TraceRequest(
        RunRequest(_variant(tmp_path), {"WIDTH": 16, "HEIGHT": 8}, device_key=device.key)
    )
    traced = executor.trace(request)
    assert traced.result.status == "verified", traced.result.summary()


def test_warp_takes_a_64_tile_where_128_gives_too_few_groups(device):
    warp = find_variant("matmul", "warp")
    gpu = dataclasses.replace(device, type="GPU")
    chosen = {}
    for n in (1024, 1000, 4097, 2048, 4096):
        launch = plan(warp, {"M": n, "N": n, "K": n}, None, None, gpu)
        assert isinstance(launch, LaunchPlan), launch
        chosen[n] = (launch.defines["BM"], launch.defines["BN"], launch.local_size)
    assert chosen == {
        1024: (64, 64, (8, 8)),
        1000: (64, 64, (8, 8)),
        4097: (64, 64, (8, 8)),
        2048: (128, 128, (16, 16)),
        4096: (128, 128, (16, 16)),
    }
    given = plan(warp, {"M": 1024, "N": 1024, "K": 1024}, None, {"BM": 128, "BN": 128}, gpu)
    assert isinstance(given, LaunchPlan) and given.local_size == (16, 16)


CPU_ONLY = '[[by_size]]\nwhen = "CPU"\nRIGHT = 1'


def test_a_rule_may_name_the_cpu_and_holds_on_a_cpu_device_only(tmp_path, device):
    variant = _variant(tmp_path, CPU_ONLY)
    sizes = {"WIDTH": 8, "HEIGHT": 8}
    cpu = dataclasses.replace(device, type="CPU")
    on_cpu = plan(variant, sizes, None, None, cpu)
    on_gpu = plan(variant, sizes, None, None, dataclasses.replace(device, type="GPU"))
    assert isinstance(on_cpu, LaunchPlan) and isinstance(on_gpu, LaunchPlan)
    assert (on_cpu.defines["RIGHT"], on_gpu.defines["RIGHT"]) == (1, 0)
    assert plan(variant, sizes, None, {"RIGHT": 0}, cpu).defines["RIGHT"] == 0  # the user's wins


def test_the_trace_of_a_cpu_rule_builds_with_the_runs_defines(tmp_path, executor, device):
    """The trace instruments the kernel with the defines the run is built with, here the
    rule's where the device is a CPU (PoCL) and the default on another."""
    request = RunRequest(
        _variant(tmp_path, CPU_ONLY), {"WIDTH": 16, "HEIGHT": 8}, device_key=device.key
    )
    run = executor.run(request)
    traced = executor.trace(TraceRequest(request))
    assert traced.result.status == run.status, traced.result.summary()
    assert run.status == ("verified" if device.type == "CPU" else "wrong"), run.summary()


@pytest.mark.parametrize("variant", ["fast", "wave", "reg2d", "hopper", "warp"])
def test_matmuls_register_blocks_are_4x4_on_a_cpu_and_as_before_on_a_gpu(device, variant):
    """PoCL compiled matmul/fast's 8×8 blocks for 10 CPU-seconds at 100×36×257, its 4×4 in 2
    (and runs them faster): a CPU device takes its own default."""
    kernel = find_variant("matmul", variant)
    sizes = {"M": 100, "N": 36, "K": 257}
    blocks = {}
    for kind in ("CPU", "GPU"):
        launch = plan(kernel, sizes, None, None, dataclasses.replace(device, type=kind))
        assert isinstance(launch, LaunchPlan), launch
        d = launch.defines
        blocks[kind] = (d.get("TM", d.get("WPTM")), d.get("TN", d.get("WPTN")))
    assert blocks["CPU"] == (4, 4)
    assert blocks["GPU"][0] * blocks["GPU"][1] >= 64


def test_variants_lists_the_rules(tmp_path):
    listed = variant_json(_variant(tmp_path))
    assert listed["by_size"] == [{"when": "WIDTH > 8", "defines": {"RIGHT": 1}}]
    assert listed["defines"] == {"RIGHT": 0}


@pytest.mark.parametrize(
    ("rules", "complaint"),
    [
        ('[[by_size]]\nwhen = "DEPTH > 8"\nRIGHT = 1', "uses ['DEPTH']"),
        ('[[by_size]]\nwhen = "WIDTH > 8"\nWRONG = 1', "WRONG must be a define"),
        ('[[by_size]]\nwhen = "WIDTH > 8"\nRIGHT = 2', "RIGHT=2 is not in [allowed]"),
        ("[[by_size]]\nRIGHT = 1", "lacks when"),
        ('[[by_size]]\nwhen = "WIDTH > 8"', "sets no define"),
        ('by_size = "WIDTH > 8"', "must be [[by_size]] tables"),
    ],
)
def test_a_wrong_rule_is_an_error_when_the_file_is_read(rules, complaint):
    if rules.startswith("by_size"):  # a top-level key goes before the first table
        source = SOURCE.format(rules="").replace("name =", rules + "\nname =", 1)
    else:
        source = SOURCE.format(rules=rules)
    with pytest.raises(CatalogError, match=complaint.replace("[", r"\[").replace("]", r"\]")):
        parse_variant(source, "mine.cl")
