"""The trace benchmark: what each stage cost, the fields `bench-trace --json` prints."""

import pytest

from explorer.benchmarks.trace import (
    STANDARD_CASES,
    TraceBenchError,
    TraceCase,
    bench_case,
    bench_trace,
)


def test_a_small_case_reports_every_stage():
    case = TraceCase("tiled 32²", "matmul", "tiled", {"M": 32, "N": 32, "K": 32}, "random")
    record = bench_case(case)
    assert list(record.to_json()) == [
        "case",
        "device",
        "records",
        "groups_traced",
        "count_ms",
        "record_ms",
        "decode_ms",
        "analyse_ms",
        "total_ms",
        "peak_rss_mb",
        "verify_ms",
    ]
    assert record.case == "tiled 32²" and record.device
    assert record.groups_traced == 4 and record.records > 0  # 2×2 groups of 16×16
    assert record.verify_ms == 0  # every group traced: no launch of the plain build
    stages = record.record_ms + record.decode_ms + record.analyse_ms + record.count_ms
    assert record.record_ms > 0 and record.analyse_ms > 0
    assert record.total_ms == pytest.approx(stages, abs=0.2)
    assert record.peak_rss_mb > 0
    assert record.summary().startswith("tiled 32²: ")


def test_a_refused_case_raises_with_its_status():
    case = TraceCase("refused", "matmul", "seed003-func2", {"M": 100, "N": 100, "K": 100}, "iou")
    with pytest.raises(TraceBenchError) as caught:
        list(bench_trace(cases=[case]))
    assert caught.value.status == "refused" and str(caught.value).startswith("refused: ")


def test_the_standard_cases_are_the_documented_ones():
    assert [c.label for c in STANDARD_CASES] == [
        "tiled matmul 256², every group",
        "IOU matmul 768², default window",
    ]


def test_the_small_case_is_timed_beside_oclgrind_on_the_same_launch(monkeypatch):
    from explorer.benchmarks import trace as bench

    commands = []
    monkeypatch.setattr(bench, "_command_s", lambda case, key, *_: commands.append(key) or 0.5)
    (first, warm) = list(bench.bench_warm_trace(rounds=1))
    assert [first.round, warm.round] == [0, 1]
    assert list(warm.to_json()) == [
        "case",
        "device",
        "round",
        "trace_ms",
        "oclgrind_ms",
        "ratio",
        "command_s",
    ]
    assert warm.case == bench.SMALL_CASE.label and "Oclgrind" not in warm.device
    assert warm.trace_ms > 0 and warm.oclgrind_ms > 0
    assert warm.ratio == pytest.approx(warm.trace_ms / warm.oclgrind_ms, abs=0.02)
    assert len(commands) == 2 and warm.command_s == 0.5
    assert "ratio" in warm.summary()
