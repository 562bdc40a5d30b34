"""A kernel whose paths differ from launch to launch (work handed out by an atomic ticket, a
compare-and-swap loop that retries as other work-items win: on a GPU running many at once,
the number of records a work-item makes is not the same twice) is still traced whole: the
work-items whose records did not fit in the room their count gave them get room for what they
made, and the launch is recorded again.

On the development machine's CPU device the draw seldom differs between launches, so the
counting launch is made to come short here, as a GPU's would: every work-item that draws a
ticket with extra reads is counted at one record less than it makes."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.record import trace_launch
from explorer.engine.record.trace_launch import TraceRequest, trace_and_analyse
from explorer.engine.records import RunRequest

KERNELS = Path(__file__).parent / "varying"


def _trace(device):
    variant = load_variant_file(KERNELS / "ticket.cl")
    return trace_and_analyse(TraceRequest(RunRequest(variant, {}, device_key=device.key)))


def test_records_past_the_counted_room_are_recorded_again_whole(device, monkeypatch):
    honest = _trace(device)
    assert honest.report_json["complete"] is True, honest.report_text
    counting = trace_launch.TraceLaunch.count

    def short(self, groups, real_barriers=False):
        counted = counting(self, groups, real_barriers)
        return np.where(counted > 2, counted - 1, counted).astype(counted.dtype)

    monkeypatch.setattr(trace_launch.TraceLaunch, "count", short)
    retraced = _trace(device)
    assert retraced.report_json["complete"] is True, retraced.report_text
    found = [(f.kind, f.line, f.buffer, f.count) for f in retraced.analysis.findings]
    assert found == [(f.kind, f.line, f.buffer, f.count) for f in honest.analysis.findings]
    assert retraced.report_json["records"] == honest.report_json["records"]
