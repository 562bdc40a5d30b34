"""One trace program whose barriers each launch switches on or off (a GPU's trace) records
what the two builds record (a CPU's: one without barriers that counts, one with them that
records): the same records and the same findings, a missing barrier's race and a barrier only
some work-items reach included. Both are run on the default device by hand; a CPU device keeps
the two builds, and there the case of the divergent barrier shows why."""

from __future__ import annotations

from pathlib import Path

import pytest

import explorer.engine.record.trace_launch as tracing
from explorer.engine.header.catalog import find_variant, load_variant_file, parse_variant
from explorer.engine.record.trace_launch import TraceRequest, trace_and_analyse
from explorer.engine.records import RunRequest

CONSTRUCTS = Path(__file__).parent.parent / "trace" / "constructs"


def _racy_tiled():
    """matmul/tiled without its second barrier: the next tile's stores race with the reads."""
    variant = find_variant("matmul", "tiled")
    lines = variant.source.splitlines(keepends=True)
    barriers = [at for at, line in enumerate(lines) if "barrier(CLK_LOCAL_MEM_FENCE);" in line]
    lines[barriers[1]] = lines[barriers[1]].replace("barrier(CLK_LOCAL_MEM_FENCE);", ";")
    return parse_variant("".join(lines), Path(variant.path))


CASES = {
    "tiled": (lambda: find_variant("matmul", "tiled"), {"M": 48, "N": 32, "K": 64}),
    "racy tiled": (_racy_tiled, {"M": 32, "N": 32, "K": 64}),
    "divergent barrier": (
        lambda: load_variant_file(CONSTRUCTS / "15_barrier_divergence.cl"),
        {"WIDTH": 32, "HEIGHT": 32},
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_one_switched_build_records_what_two_builds_record(device, monkeypatch, case):
    if case == "divergent barrier" and "CPU" in device.type.upper():
        pytest.skip(
            "PoCL mis-builds a barrier under a condition that depends on the work-item even "
            "where the switch leaves it unexecuted: a CPU's trace keeps two builds"
        )
    make, sizes = CASES[case]
    run = RunRequest(make(), sizes, device_key=device.key, input="random")
    reports, texts = [], []
    for one in (False, True):
        monkeypatch.setattr(tracing, "ONE_BUILD", one)
        traced = trace_and_analyse(TraceRequest(run))
        assert traced.report_json is not None, traced.result.summary()
        report = dict(traced.report_json)
        report.pop("dispatch_order")  # the order the groups started in is the device's own
        reports.append(report)
        texts.append(traced.report_text)
    assert reports[0] == reports[1]
    assert texts[0] == texts[1]
    kinds = {finding["kind"] for finding in reports[0]["findings"]}
    expected = {"tiled": set(), "racy tiled": {"race"}, "divergent barrier": {"barrier-divergence"}}
    assert expected[case] <= kinds


def test_a_cpu_device_traces_with_two_builds_and_a_gpu_with_one(device, monkeypatch):
    monkeypatch.setattr(tracing, "ONE_BUILD", None)
    assert tracing.one_build(device.key) == ("CPU" not in device.type.upper())
