"""Findings grouped by root cause, with advice that is right when followed literally."""

import json
import subprocess
import sys
from pathlib import Path

from explorer.engine.header.catalog import find_variant, load_variant_file
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from explorer.trace.analysis.races import NO_LOCAL_BARRIER
from explorer.trace.analysis.report import group_findings, groups_json
from explorer.trace.recorded import Finding
from tests.conftest import TEST_KERNELS

ROOT = Path(__file__).resolve().parents[2]
MATVEC = {"WIDTH": 1100, "HEIGHT": 64}


def finding(kind, line, buffer, message="", phase=None, subkind="", other_lines=()):
    return Finding(kind, line, phase, buffer, (), 1, message, (), subkind, other_lines)


def race(line, other, phase):
    """A race with no barrier between ``line`` and ``other``, as the race detector gives it."""
    message = f"line {line} updates it and line {other} reads it"
    return finding("race", line, "tile", message, phase, NO_LOCAL_BARRIER, (line, other))


def test_the_same_out_of_bounds_index_at_read_and_write_is_one_cause():
    findings = [
        finding("out-of-bounds", 12, "c", "line 12 reads c[64] outside c"),
        race(20, 22, phase=1),
        finding("out-of-bounds", 14, "c", "line 14 writes c[64] outside c"),
        finding("coverage", None, "c", "5 of 64 elements of c were never written"),
        race(21, 22, phase=1),
        race(30, 31, phase=3),
    ]
    groups = group_findings(findings)
    assert [(g.kind, len(g.findings)) for g in groups] == [
        ("out-of-bounds", 3),
        ("race", 2),
        ("race", 1),
    ]
    assert groups[0].lines == (12, 14)
    assert groups[1].lines == (20, 21, 22)
    assert "lines 20–22" in groups[1].cause
    assert [g["findings"] for g in groups_json(findings)] == [[0, 2, 3], [1, 4], [5]]


def test_coalesced3_races_are_one_cause_whose_advice_keeps_barriers_out_of_branches(
    executor, device
):
    request = RunRequest(find_variant("matvec", "nvidia-coalesced3"), MATVEC, device_key=device.key)
    traced = executor.trace(TraceRequest(request))
    groups = group_findings(traced.analysis.findings)
    reduction = groups[0]
    assert reduction.kind == "race" and len(reduction.findings) >= 20
    assert set(range(55, 61)) <= set(reduction.lines)
    assert "close the condition before the barrier" in reduction.advice
    assert traced.report_text.count("What to do:") == len(groups)
    for f in reduction.findings:  # each finding's own advice says the same
        assert "where every work-item of the group reaches it" in f.message or (
            "every work-item of the group reaches (outside any branch" in f.message
        )


def test_coalesced3_fixed_literally_as_advised_traces_without_race_or_divergence(executor, device):
    """tests/kernels/coalesced3_fixed_as_advised.cl is NVIDIA's kernel with each reduction step
    split as the advice says: read into a private variable, a barrier outside the condition,
    the write under the condition reopened, a barrier."""
    fixed = load_variant_file(TEST_KERNELS / "coalesced3_fixed_as_advised.cl")
    traced = executor.trace(TraceRequest(RunRequest(fixed, MATVEC, device_key=device.key)))
    assert traced.analysis is not None
    kinds = {f.kind for f in traced.analysis.findings}
    assert not kinds & {"race", "barrier-divergence"}, traced.report_text
    assert traced.result.status == "verified"


def test_trace_json_names_each_findings_group():
    out = subprocess.run(
        [sys.executable, "-m", "explorer", "trace", "--family", "matvec", "--variant",
         "nvidia-coalesced3", "--width", "300", "--height", "8", "--json"],
        capture_output=True, text=True, cwd=ROOT, timeout=240,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["groups"] and report["groups"][0]["advice"]
    for number, group in enumerate(report["groups"]):
        assert all(report["findings"][i]["group"] == number for i in group["findings"])
    assert sorted(i for g in report["groups"] for i in g["findings"]) == list(
        range(len(report["findings"]))
    )
