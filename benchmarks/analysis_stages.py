"""The analysis of one trace, stage by stage and finding kind by finding kind, in new processes:
this checkout beside another (``--against``), on the same recorded trace.

    python benchmarks/analysis_stages.py [--case tiled|iou] [--rounds 5] [--against DIR]
                                         [--one-thread] [--page-faults] [--executor-stacks]
                                         [--json]

The case (``bench-trace``'s: tiled matmul 256², every group, or IOU matmul 768², default
window) is traced once, without values as ``bench-trace`` traces it, on the default device
(``--device``), and kept in a temporary file. Each round then starts one new interpreter per
checkout, in alternating order, that reads the trace and analyses it once, as an executor
process analyses its first trace: the context (per-work-item tables), the split of the
records into units, each finding kind's ``find`` in the report's order, the loads per
element and the site statistics, as ``explorer.trace.analysis.analyse`` runs them, each
timed; ``total`` is their sum. ``--against DIR`` names another checkout's root (its
``explorer`` package is the one imported there): its figures are printed beside this one's,
the median of the rounds for each. ``--one-thread`` runs the analysis's numpy passes on one
thread and times them in process CPU time, which another process on a busy machine disturbs
less than the wall clock; without it, the wall clock and the threads the analysis would use.
``--executor-stacks`` gives the process's threads the stacks an executor gives its own
(``explorer.engine.serve``: 64 MB, more than the C library keeps for reuse), so that a thread
the analysis starts costs there what it costs in an executor. A finding kind that a checkout
lacks shows as "-". ``--json`` prints one object per process.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

CASES = {"tiled": 0, "iou": 1}  # the index in explorer.benchmarks.trace.STANDARD_CASES


def record(case: str, device: str | None, path: Path) -> tuple[str, int]:
    """Trace ``case`` as ``bench-trace`` does and keep the trace in ``path``."""
    sys.path.insert(0, str(ROOT))
    from explorer.benchmarks.trace import STANDARD_CASES
    from explorer.engine.header.catalog import find_variant
    from explorer.engine.launch.devices import list_devices, pick_device
    from explorer.engine.record.trace_launch import TraceRequest, run_trace
    from explorer.engine.records import RunRequest

    chosen = STANDARD_CASES[CASES[case]]
    key = pick_device(list_devices(), device).key
    run = RunRequest(
        find_variant(chosen.family, chosen.variant),
        dict(chosen.sizes),
        device_key=key,
        input=chosen.input,
    )
    outcome = run_trace(TraceRequest(run, values=False))
    if outcome.trace is None:
        raise SystemExit(f"{chosen.label}: the trace did not run ({outcome.result.status})")
    with path.open("wb") as out:
        pickle.dump(outcome.trace, out, protocol=5)
    return chosen.label, outcome.trace.records


def stages(
    path: Path, one_thread: bool, page_faults: bool = False, executor_stacks: bool = False
) -> dict[str, float]:
    """Read the trace at ``path`` and analyse it once, each stage timed (ms), or with
    ``page_faults`` the minor page faults each stage took (memory touched for the first
    time: about 1.5 ms a megabyte on a virtual machine); ``executor_stacks``: threads with
    an executor's stacks."""
    if executor_stacks:
        from explorer.engine.serve import _roomy_thread_stacks

        _roomy_thread_stacks()
    import explorer.trace.analysis as analysis
    from explorer.trace.analysis import registry, threads
    from explorer.trace.analysis.context import Context

    if one_thread:
        threads._MAX_WORKERS = 1
    clock = time.process_time if one_thread else time.perf_counter
    with path.open("rb") as f:
        trace = pickle.load(f)
    took: dict[str, float] = {}

    faults: dict[str, float] = {}

    def timed(name: str, function: Any, *args: Any) -> Any:
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        started = clock()
        value = function(*args)
        took[name] = (clock() - started) * 1e3
        faults[name] = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
        return value

    ctx = timed("context", Context, trace, 32, 32, 4)
    ctx.diff = None
    units = timed("split", analysis.split, ctx)
    for d in registry.detectors():
        timed(d.kind, lambda d=d: list(d.find(ctx, units)))
    timed("traffic", analysis.traffic, ctx, units)
    timed("site_stats", analysis.site_stats, ctx, units)
    took["total"] = sum(took.values())
    faults["total"] = sum(faults.values())
    if page_faults:
        return faults
    return took


def one_process(
    checkout: Path, path: Path, one_thread: bool, page_faults: bool, executor_stacks: bool
) -> dict[str, float]:
    """:func:`stages` in a new interpreter that imports ``checkout``'s ``explorer``."""
    command = [sys.executable, str(Path(__file__).resolve()), "--stages", str(path)]
    if one_thread:
        command.append("--one-thread")
    if page_faults:
        command.append("--page-faults")
    if executor_stacks:
        command.append("--executor-stacks")
    env = dict(os.environ, PYTHONPATH=str(checkout))
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the analysis in {checkout} failed: {done.stderr[-800:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--case", choices=sorted(CASES), default="tiled")
    parser.add_argument("--device", default=None)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--against", type=Path, default=None, help="another checkout's root")
    parser.add_argument("--one-thread", action="store_true")
    parser.add_argument("--page-faults", action="store_true", help="count them, not ms")
    parser.add_argument("--executor-stacks", action="store_true", help="an executor's stacks")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--stages", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.stages is not None:  # the child: one analysis, its stages as one JSON line
        took = stages(args.stages, args.one_thread, args.page_faults, args.executor_stacks)
        print(json.dumps(took))
        return
    checkouts = {"this": ROOT}
    if args.against is not None:
        checkouts["against"] = args.against.resolve()
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "trace.pkl"
        label, records = record(args.case, args.device, path)
        runs: dict[str, list[dict[str, float]]] = {name: [] for name in checkouts}
        for number in range(args.rounds):
            order = list(checkouts) if number % 2 == 0 else list(reversed(checkouts))
            for name in order:
                took = one_process(
                    checkouts[name], path, args.one_thread, args.page_faults, args.executor_stacks
                )
                runs[name].append(took)
                if args.json:
                    print(json.dumps({"checkout": name, "round": number, **took}))
    if args.json:
        return
    clock = "CPU ms, one thread" if args.one_thread else "wall ms"
    if args.page_faults:
        clock = "minor page faults" + (", one thread" if args.one_thread else "")
    print(f"{label}: {records} records; median of {args.rounds} new processes, {clock}")
    names = list(dict.fromkeys(k for took in runs["this"] for k in took))
    for took in runs.get("against", []):
        names += [k for k in took if k not in names]
    names.remove("total")
    names.append("total")
    header = f"{'stage':<22}" + "".join(f"{name:>12}" for name in checkouts)
    print(header)
    for stage in names:
        cells = []
        for name in checkouts:
            values = [took[stage] for took in runs[name] if stage in took]
            cells.append(f"{statistics.median(values):12.1f}" if values else f"{'-':>12}")
        print(f"{stage:<22}" + "".join(cells))


if __name__ == "__main__":
    main()
