"""A launch captured on an NVIDIA H100 (``recorded/coalesced3-h100``: ``programs/coalesced3.py``
run under ``capture`` there) replayed here. Seed 002's Coalesced3 relies on the 32 work-items of
a warp running in lock-step: right on the GPU that made the capture, it differs from the
original run on PoCL, and its trace names the race at the lines the catalog's variant of the
same kernel reports."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.capture.folder import load_capture
from explorer.capture.replay import launch_variant
from explorer.engine.header.catalog import find_variant
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest

RECORDED = Path(__file__).parent / "recorded" / "coalesced3-h100"


def race_lines(traced) -> set[int]:
    assert traced.analysis is not None, traced.result.summary()
    return {f.line for f in traced.analysis.findings if f.kind == "race"}


def test_a_warp_synchronous_launch_from_the_h100_differs_on_pocl_and_the_trace_says_why(
    executor, device, on_pocl
):
    if not on_pocl:
        pytest.skip("the replay differs where work-items do not run in warps: PoCL")
    capture = load_capture(RECORDED)
    launch = capture.find("MatVecMulCoalesced3#1")
    assert launch.device.startswith("NVIDIA H100") and launch.local_size == (256,)
    variant = launch_variant(capture, launch)

    ran = executor.run(RunRequest(variant, {}, device_key=device.key, repeat=1))
    assert ran.status == "wrong", ran.summary()
    assert ran.verdict.compared_with == "the original run"
    assert ran.verdict.mismatches > 0
    assert "differs from the original run" in ran.summary()

    replayed = executor.trace(TraceRequest(RunRequest(variant, {}, device_key=device.key)))
    catalog = executor.trace(
        TraceRequest(
            RunRequest(
                find_variant("matvec", "nvidia-coalesced3"),
                {"WIDTH": 1100, "HEIGHT": 8},
                local=(256,),
                device_key=device.key,
                input="random",
            )
        )
    )
    lines = race_lines(replayed)
    source = variant.source.splitlines()
    assert lines and all("p[0]" in source[line - 1] for line in lines)
    assert lines == race_lines(catalog)
