"""A chain of component selections on a vector in global memory (`v[1].wz.x` through a
macro, `.zyx.xy.y`, `.lo.y`): the trace builds, and records the component the chain ends at,
so two work-items writing that component race and a neighbour's component does not."""

from __future__ import annotations

from pathlib import Path

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest

CHAINS = Path(__file__).parent / "chains"


def traced(executor, device, name: str):
    run = RunRequest(load_variant_file(CHAINS / name), {}, device_key=device.key)
    t = executor.trace(TraceRequest(run))
    assert t.result.status == "unchecked", t.result.summary()  # built and ran: no reference
    assert t.report_json["complete"] is True
    return t


def test_a_chain_ending_at_w_races_with_a_write_of_w(executor, device):
    findings = traced(executor, device, "race.cl").analysis.findings
    assert sorted((f.kind, f.buffer, f.line) for f in findings) == [
        ("coverage", "v", 22),
        ("race", "v", 22),
    ]


def test_a_chain_ending_at_w_does_not_race_with_a_write_of_x(executor, device):
    assert [f.kind for f in traced(executor, device, "apart.cl").analysis.findings] == []


def test_a_read_of_components_apart_does_not_race_with_a_write_between_them(executor, device):
    """`w[k].xz`, `z[k].odd` and `z[k].xyz.xy` read by one work-item while another writes
    `w[k].y`: the y between x and z is not read, so nothing races (it was recorded as x and y,
    a race that no compiler makes)."""
    assert [f.kind for f in traced(executor, device, "read_apart.cl").analysis.findings] == []


def test_a_read_of_components_apart_races_with_a_write_of_one_of_them(executor, device):
    """The same read while the other work-item writes `w[k].z`: the z it reads races."""
    findings = traced(executor, device, "read_apart_race.cl").analysis.findings
    assert [(f.kind, f.buffer) for f in findings if f.kind == "race"] == [("race", "w")]
