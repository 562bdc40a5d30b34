"""Trace cost: count, record, verify, decode and analyse on standard cases, with peak memory.

Each case runs in a fresh executor, so the peak resident memory it reports is that case's
own, not the largest of the cases before it.
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from explorer.engine.executor import Executor
from explorer.engine.header.catalog import find_variant
from explorer.engine.launch.devices import pick_device
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest

# What makes a fresh executor: ``Executor`` itself, or another machine's (``--host``).
Executors = Callable[..., Executor]


@dataclass(frozen=True)
class TraceCase:
    """One configuration to trace with the default window and budget."""

    label: str
    family: str
    variant: str
    sizes: dict[str, int]
    input: str


STANDARD_CASES: tuple[TraceCase, ...] = (
    TraceCase(
        "tiled matmul 256², every group",
        "matmul",
        "tiled",
        {"M": 256, "N": 256, "K": 256},
        "random",
    ),
    TraceCase(
        "IOU matmul 768², default window", "matmul", "tiled", {"M": 768, "N": 768, "K": 768}, "iou"
    ),
)

_STAGES = ("count_ms", "record_ms", "verify_ms", "decode_ms", "analyse_ms")


@dataclass(frozen=True)
class TraceBenchRecord:
    """What one case cost; ``bench-trace --json`` prints its fields, in this order."""

    case: str
    device: str
    records: int
    groups_traced: int
    count_ms: float
    record_ms: float
    decode_ms: float
    analyse_ms: float
    total_ms: float
    peak_rss_mb: float
    # The launch of the kernel as written that fills in the output outside a window of
    # groups (0 when every group was traced).
    verify_ms: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def summary(self) -> str:
        """One line: the stages' times, their total and the peak memory."""
        return (
            f"{self.case}: {self.records} records, {self.groups_traced} groups; "
            f"count {self.count_ms} ms + record {self.record_ms} ms + verify "
            f"{self.verify_ms} ms + decode {self.decode_ms} ms + analyse "
            f"{self.analyse_ms} ms = {self.total_ms} ms; "
            f"peak memory {self.peak_rss_mb} MB"
        )


class TraceBenchError(RuntimeError):
    """A case whose trace did not run; ``status`` is its run's status (refused, crashed...)."""

    def __init__(self, case: TraceCase, status: str, message: str) -> None:
        super().__init__(f"{case.label}: {message}")
        self.case = case
        self.status = status


def bench_case(
    case: TraceCase,
    device: str | None = None,
    timeout_s: float = 600.0,
    executors: Executors = Executor,
) -> TraceBenchRecord:
    """Trace ``case`` on ``device`` (a key, index or name substring; None: the default) in a
    fresh executor (made by ``executors``: another machine's with ``--host``) and report
    each stage's time."""
    with executors() as executor:
        chosen = pick_device(executor.devices(), device)
        run = RunRequest(
            find_variant(case.family, case.variant),
            dict(case.sizes),
            device_key=chosen.key,
            input=case.input,
            timeout_s=timeout_s,
        )
        traced = executor.trace(TraceRequest(run, values=False))
    if traced.analysis is None or traced.report_json is None:
        result = traced.result
        raise TraceBenchError(case, result.status, str(result.error or result.refused))
    t = traced.timings_ms
    stages = {name: round(t.get(name, 0.0), 1) for name in _STAGES}
    return TraceBenchRecord(
        case=case.label,
        device=traced.result.device,
        records=int(traced.report_json["records"]),
        groups_traced=len(traced.report_json["groups_traced"]),
        count_ms=stages["count_ms"],
        record_ms=stages["record_ms"],
        decode_ms=stages["decode_ms"],
        analyse_ms=stages["analyse_ms"],
        total_ms=round(sum(t.get(name, 0.0) for name in _STAGES), 1),
        peak_rss_mb=round(traced.peak_rss_mb, 1),
        verify_ms=stages["verify_ms"],
    )


def bench_trace(
    device: str | None = None,
    cases: Iterable[TraceCase] = STANDARD_CASES,
    executors: Executors = Executor,
) -> Iterator[TraceBenchRecord]:
    """Each case's record as soon as it is measured; the first case that fails raises
    :class:`TraceBenchError`."""
    for case in cases:
        yield bench_case(case, device, executors=executors)


# -- a small kernel's trace, warm, beside Oclgrind ----------------------------------------------

SMALL_CASE = TraceCase(
    "naive transpose 16²", "transpose", "naive", {"WIDTH": 16, "HEIGHT": 16}, "random"
)


@dataclass(frozen=True)
class WarmTraceRecord:
    """One round of a small kernel traced and checked on Oclgrind, each in its own started
    executor; ``bench-trace --small --json`` prints its fields, in this order."""

    case: str
    device: str
    round: int
    trace_ms: float  # the trace request: instrument, build, count, record, decode, analyse
    oclgrind_ms: float  # the same launch (kernel, sizes, input) checked on Oclgrind
    ratio: float  # trace_ms / oclgrind_ms: under 1, the trace is the cheaper
    command_s: float  # ``python -m explorer trace`` of the case as a process, start to report

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def summary(self) -> str:
        return (
            f"{self.case}, round {self.round}: trace {self.trace_ms} ms on {self.device}, "
            f"Oclgrind {self.oclgrind_ms} ms on the same launch, ratio {self.ratio}; "
            f"`trace` command {self.command_s} s"
        )


def _timed(function: Callable[[], Any]) -> tuple[Any, float]:
    started = time.perf_counter()
    value = function()
    return value, (time.perf_counter() - started) * 1e3


def _request(case: TraceCase, device_key: str) -> RunRequest:
    variant = find_variant(case.family, case.variant)
    return RunRequest(variant, dict(case.sizes), device_key=device_key, input=case.input)


def _command_s(case: TraceCase, device_key: str, where: Sequence[str] = ()) -> float:
    """The ``trace`` command's wall time as a person types it (its own interpreter)."""
    (size,) = set(case.sizes.values())  # one square size: ``--size`` sets every size
    command = [sys.executable, "-m", "explorer", "trace", "--family", case.family]
    command += ["--variant", case.variant, "--size", str(size), "--input", case.input]
    command += ["--device", device_key, *where]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        raise TraceBenchError(case, "error", f"the trace command failed: {done.stderr[-400:]}")
    return round(time.perf_counter() - started, 3)


def warm_trace_round(
    case: TraceCase,
    device: str | None,
    number: int,
    executors: Executors = Executor,
    where: Sequence[str] = (),
) -> WarmTraceRecord:
    """Trace ``case`` in a fresh executor (started before the clock runs) and check the same
    launch on Oclgrind in another; then time the ``trace`` command as a whole."""
    from explorer.engine.record.oclgrind import CHECK_ENV, find_oclgrind
    from explorer.engine.second_opinion import run_check

    with executors() as executor:
        chosen = pick_device(executor.devices(), device)
        traced, trace_ms = _timed(lambda: executor.trace(TraceRequest(_request(case, chosen.key))))
    if traced.analysis is None:
        result = traced.result
        raise TraceBenchError(case, result.status, str(result.error or result.refused))
    with executors(env=CHECK_ENV) as checker:
        simulator = find_oclgrind(checker.devices())
        if simulator is None:
            raise TraceBenchError(case, "error", "no Oclgrind platform to compare with")
        checked, oclgrind_ms = _timed(lambda: run_check(checker, _request(case, simulator.key)))
    if checked.result.status != "verified":
        raise TraceBenchError(case, checked.result.status, "Oclgrind did not verify it")
    return WarmTraceRecord(
        case=case.label,
        device=traced.result.device,
        round=number,
        trace_ms=round(trace_ms, 1),
        oclgrind_ms=round(oclgrind_ms, 1),
        ratio=round(trace_ms / oclgrind_ms, 2),
        command_s=_command_s(case, chosen.key, where),
    )


def bench_warm_trace(
    device: str | None = None,
    rounds: int = 3,
    case: TraceCase = SMALL_CASE,
    executors: Executors = Executor,
    where: Sequence[str] = (),
) -> Iterator[WarmTraceRecord]:
    """Round 0 fills the caches (a first trace of the kernel); rounds 1… are the warm ones.
    ``where``: the trace command's ``--host``/``--executor-command`` options."""
    for number in range(rounds + 1):
        yield warm_trace_round(case, device, number, executors, where)
