"""Kernels in the styles people write (tests/trace/real_styles), each with a bug the trace
must report as it is: the right kind, line, buffer and elements. Each golden finding was
written by reading the kernel."""

from __future__ import annotations

from pathlib import Path

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest

KERNELS = Path(__file__).parent / "real_styles"


def _traced(executor, device, name: str):
    run = RunRequest(load_variant_file(KERNELS / f"{name}.cl"), {}, device_key=device.key)
    traced = executor.trace(TraceRequest(run), keep_trace=True)
    assert traced.analysis is not None, traced.result.summary()
    assert traced.report_json["complete"] is True
    return traced


def test_a_vector_load_over_the_end_names_the_elements_it_covers(executor, device):
    """vload4(63, src + 1) covers src[253..256]: only src[256] is outside the 256 floats, so
    the finding names the span and that element, never src[253] as if it were outside."""
    traced = _traced(executor, device, "vload_past_end")
    [finding] = [f for f in traced.analysis.findings if f.kind == "out-of-bounds"]
    assert (finding.line, finding.buffer, finding.count) == (4, "src", 1)
    assert finding.elements == (256,)
    assert finding.message.startswith(
        "line 4 reads src[253..256] reaching outside src (256 elements)"
    )
