"""A process's first trace beside its later ones: where a fresh executor's trace spends its time.

    python benchmarks/first_trace.py [--device NVIDIA] [--size 768] [--traces 3] [--processes 3]

Each process (a new interpreter, as ``bench-trace`` gives each case a new executor) traces
``matmul/tiled`` with the IOU input and the default window, ``bench-trace``'s second case,
``--traces`` times as the executor does: traced and analysed without values, the staging
memory grown after each trace. A later trace forgets the plain launch's kept results, so it
launches the kernel as written again, as a new executor does. For each trace: its stages
(those ``bench-trace`` adds up) and the parts inside them, each with its milliseconds, the
minor page faults it took and its system CPU time (the kernel's, mostly faulting pages in).
``--json`` prints one object per trace.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.append(str(HERE.parent))  # the repository's code, unless PYTHONPATH names another

STAGES = ("count_ms", "record_ms", "verify_ms", "decode_ms", "analyse_ms")


class Parts:
    """Milliseconds, minor faults and system CPU milliseconds of the wrapped calls."""

    def __init__(self) -> None:
        self.totals: dict[str, list[float]] = {}

    def wrap(self, label: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            before, started = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
            try:
                return function(*args, **kwargs)
            finally:
                after = resource.getrusage(resource.RUSAGE_SELF)
                total = self.totals.setdefault(label, [0.0, 0.0, 0.0])
                total[0] += (time.perf_counter() - started) * 1e3
                total[1] += after.ru_minflt - before.ru_minflt
                total[2] += (after.ru_stime - before.ru_stime) * 1e3

        return timed


def _wrap_parts(parts: Parts) -> None:
    """The trace's parts, wrapped where they are looked up when they run."""
    import explorer.trace.analysis as analysis
    from explorer.engine.record import staging, trace_launch, window_verify

    where: tuple[tuple[Any, str, str], ...] = (
        (trace_launch.TraceLaunch, "_count", "count"),
        (trace_launch.TraceLaunch, "_record", "record: launch, planes"),
        (staging.StagingPool, "read_fresh", "record: planes into new memory"),
        (staging.StagingPool, "read", "record: planes into kept memory"),
        (trace_launch, "decode", "decode"),
        (window_verify.PlainFill, "results", "verify: plain launch"),
        (trace_launch, "window_results", "verify: merge"),
        (window_verify, "records_of_sites", "verify: merge: scan"),
        (analysis, "analyse", "analyse"),
    )
    for owner, name, label in where:
        if hasattr(owner, name):
            setattr(owner, name, parts.wrap(label, getattr(owner, name)))
    for name in ("split", "traffic", "site_stats"):  # the analysis's own parts
        setattr(analysis, name, parts.wrap(f"analyse: {name}", getattr(analysis, name)))
    kinds = analysis.registry.detectors

    def detectors() -> tuple[Any, ...]:
        return tuple(
            dataclasses.replace(d, find=parts.wrap(f"analyse: {d.kind}", d.find)) for d in kinds()
        )

    analysis.registry.detectors = detectors  # type: ignore[assignment]


def traces(device: str | None, size: int, count: int) -> list[dict[str, Any]]:
    """``count`` traces of the case in this process, each as one row."""
    from explorer.engine.early import SINGLE_THREADED

    os.environ.update(SINGLE_THREADED)  # as the executor's process has them
    from explorer.engine.serve import prepare_process

    prepare_process()
    from explorer.engine.header.catalog import find_variant
    from explorer.engine.launch.devices import list_devices, pick_device
    from explorer.engine.record import staging, window_verify
    from explorer.engine.record.trace_launch import TraceRequest, trace_and_analyse
    from explorer.engine.records import RunRequest

    chosen = pick_device(list_devices(), device)
    parts = Parts()
    _wrap_parts(parts)
    sizes = {"M": size, "N": size, "K": size}
    run = RunRequest(find_variant("matmul", "tiled"), sizes, device_key=chosen.key, input="iou")
    rows = []
    for number in range(count):
        parts.totals.clear()
        started = time.perf_counter()
        traced = trace_and_analyse(TraceRequest(run, values=False))
        wall = (time.perf_counter() - started) * 1e3
        if traced.report_json is None or traced.result.status != "verified":
            raise SystemExit(f"the trace did not verify: {traced.result.summary()}")
        t = traced.timings_ms
        rows.append(
            {
                "trace": number,
                "device": traced.result.device,
                "records": int(traced.report_json["records"]),
                "groups_traced": len(traced.report_json["groups_traced"]),
                **{name: round(t.get(name, 0.0), 1) for name in STAGES},
                "total_ms": round(sum(t.get(name, 0.0) for name in STAGES), 1),
                "wall_ms": round(wall, 1),
                "parts": {
                    k: [round(v[0], 1), int(v[1]), round(v[2], 1)] for k, v in parts.totals.items()
                },
            }
        )
        del traced
        window_verify._plain_results_kept.clear()  # as a new configuration, or executor, has
        staging.grow_pending()  # as the executor does once its reply is sent
    return rows


def _print(row: dict[str, Any], as_json: bool) -> None:
    if as_json:
        print(json.dumps(row), flush=True)
        return
    stages = " + ".join(f"{name[:-3]} {row[name]}" for name in STAGES)
    print(f"process {row['process']}, trace {row['trace']}: {stages} = {row['total_ms']} ms")
    for label, (ms, faults, system) in row["parts"].items():
        if ms < 0.5:
            continue  # a finding kind with nothing to look at, mostly
        print(f"    {label:34} {ms:8.1f} ms {faults:8d} faults {system:7.1f} ms system")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device")
    parser.add_argument("--size", type=int, default=768)
    parser.add_argument("--traces", type=int, default=3, help="traces in each process")
    parser.add_argument("--processes", type=int, default=3, help="new processes, one after another")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:  # one process's traces, as JSON lines for the first process
        for row in traces(args.device, args.size, args.traces):
            print(json.dumps({"process": args.child, **row}), flush=True)
        return 0
    for number in range(args.processes):
        command = [sys.executable, __file__, "--child", str(number), "--size", str(args.size)]
        command += ["--traces", str(args.traces)] + (
            ["--device", args.device] if args.device else []
        )
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            print(done.stdout + done.stderr, file=sys.stderr)
            return done.returncode
        for line in done.stdout.splitlines():
            if line.startswith("{"):
                _print(json.loads(line), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
