"""``bench``: time variants at several sizes beside numpy and an optional baseline."""

from __future__ import annotations

import argparse
import csv
import json
import sys
from typing import Any

from explorer.cli.command import Command, available_devices, timeout_seconds
from explorer.engine.executor import Executor
from explorer.engine.header.catalog import catalog, find_variant
from explorer.engine.launch.devices import pick_device
from explorer.engine.measure.bench import BASELINES, bench, parse_size, parse_sweep
from explorer.engine.measure.sweep_metrics import FIELDS, METRICS
from explorer.engine.records import EXIT_CODES, RunResult, figure_text
from explorer.families import FAMILIES
from explorer.paths import shown
from explorer.selection import UsageError, add_layout, with_layout

MAX_SIZE = 2**31 - 1  # sizes reach kernels as C ints

CSV_FIELDS: tuple[str, ...] = (
    "family",
    "variant",
    "device",
    "size",
    "local_size",
    "status",
    "kernel_ms_median",
    "kernel_ms_min",
    "kernel_ms_max",
    "gflops",
    "gbps",
    "max_abs_error",
    "refused",
    "error",
    "probe_seed",
    "probe",
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Family, variants, sizes, device, repeats, baseline, sweep and the output format."""
    parser.add_argument("--family", choices=list(FAMILIES), required=True)
    parser.add_argument("--variants", default="all", help="'all' or comma-separated ids")
    parser.add_argument("--sizes", default="256", help="comma-separated, e.g. 256,512 or 1100x300")
    parser.add_argument("--device")
    add_layout(parser)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument(
        "--timeout", type=timeout_seconds, default=120.0, help="seconds per run (default 120)"
    )
    parser.add_argument(
        "--baseline",
        choices=list(BASELINES),
        help="add ratio_to_baseline to every row: copy (float4 copy kernel, GB/s ratio), "
        "fma (multiply-add kernel, GFLOP/s ratio), numpy, torch or clblast (time ratio; clblast "
        "needs the optional pyclblast); higher is better",
    )
    parser.add_argument(
        "--sweep",
        action="append",
        default=[],
        metavar="NAME=V1,V2",
        help="run every combination: local=8x8,16x16 or a define, e.g. TS=8,16,32 (repeatable)",
    )
    parser.add_argument(
        "--metric",
        choices=METRICS,
        default="time",
        help="what a sweep is judged by: time (default), or from a real trace of every point "
        "(small sizes keep it fast): bank-degree (worst local site's bank-conflict degree) "
        "or sectors (worst global site's 32-byte sectors per warp request)",
    )
    fmt = parser.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="one JSON line per record")
    fmt.add_argument("--csv", action="store_true")


def run(args: argparse.Namespace, executor: Executor) -> int:
    """Run the benchmark (progress on stderr), then print its records as a table, CSV or
    JSON lines."""
    available = [v for v in catalog() if v.family == args.family]
    if args.variants == "all":
        chosen = available
    else:
        chosen = [find_variant(args.family, vid.strip()) for vid in args.variants.split(",")]
    chosen = [with_layout(v, args.layout) for v in chosen]
    sizes = [parse_size(args.family, s.strip()) for s in args.sizes.split(",") if s.strip()]
    if not sizes:
        raise UsageError("--sizes names no size; e.g. --sizes 256,512")
    for size in sizes:
        if not all(1 <= v <= MAX_SIZE for v in size.values()):
            raise UsageError(
                f"--sizes {shown(args.sizes)}: each size from 1 to {MAX_SIZE}, not "
                f"{'x'.join(str(v) for v in size.values())}"
            )
    sweep = parse_sweep(args.sweep)
    if args.repeat < 1:
        raise UsageError("--repeat must be at least 1")
    device = pick_device(available_devices(executor), args.device)

    def progress(result: RunResult) -> None:
        print(f"  {result.summary()}", file=sys.stderr)

    records = bench(
        executor,
        chosen,
        sizes,
        device.key,
        args.repeat,
        args.timeout,
        progress,
        sweep=sweep,
        baseline=args.baseline,
        device_name=device.name,
        metric=args.metric,
    )
    fields = CSV_FIELDS
    if sweep:
        fields += ("sweep", "defines")
    if args.baseline:
        fields += ("baseline", "ratio_to_baseline")
    if args.metric != "time":
        fields += ("bank_degree", "sectors_per_request", "trace_status")
    if args.json:
        for record in records:
            print(json.dumps(record))
    elif args.csv:
        _print_csv(records, fields)
    else:
        _print_table(records, args.baseline, bool(sweep), args.metric)
    return bench_exit_code([str(r.get("status")) for r in records])


def bench_exit_code(statuses: list[str]) -> int:
    """The worst outcome among the runs: 4 when one crashed or timed out, 2 when one could not
    run (a build or input error), 1 when one was wrong, 3 when every run was refused, else 0
    (a sweep's refused points beside runs that ran are part of its answer)."""
    ran = [s for s in statuses if s not in ("skipped",)]
    for status, code in (("crashed", 4), ("timeout", 4), ("error", 2), ("wrong", 1)):
        if status in ran:
            return code
    if ran and all(s == "refused" for s in ran):
        return EXIT_CODES["refused"]
    return 0


def _csv_cell(field: str, value: Any) -> Any:
    if isinstance(value, dict):
        if field in ("sweep", "defines"):
            return " ".join(f"{k}={v}" for k, v in value.items())
        return "x".join(str(v) for v in value.values())
    if isinstance(value, list):
        return "x".join(str(v) for v in value)
    return "" if value is None else value


def _print_csv(records: list[dict[str, Any]], fields: tuple[str, ...]) -> None:
    writer = csv.writer(sys.stdout)
    writer.writerow(fields)
    for record in records:
        writer.writerow([_csv_cell(field, record.get(field)) for field in fields])


def _print_table(
    records: list[dict[str, Any]], baseline: str | None, sweep: bool, metric: str = "time"
) -> None:
    head = f"{'variant':<24}{'size':<16}{'status':<10}{'median ms':>12}{'GFLOP/s':>10}"
    head += f"{'GB/s':>9}"
    if baseline:
        head += f"{'vs ' + baseline:>11}"
    if metric != "time":
        head += f"{metric:>13}"
    if sweep:
        head += "  sweep"
    print(head)
    for r in records:
        size = "x".join(str(v) for v in r["size"].values())
        line = (
            f"{r['variant']:<24}{size:<16}{r['status']:<10}"
            f"{_fmt(r['kernel_ms_median'], 3):>12}{_fmt(r['gflops'], 1):>10}"
            f"{_fmt(r['gbps'], 1):>9}"
        )
        if baseline:
            line += f"{_fmt(r.get('ratio_to_baseline'), 3):>11}"
        if metric != "time":
            line += f"{_fmt(r.get(FIELDS[metric]), 2):>13}"
        if sweep and r.get("sweep"):
            line += "  " + " ".join(f"{k}={v}" for k, v in r["sweep"].items())
            if r["status"] == "refused":
                line += f"  ({r['refused']})"
        if r["status"] == "skipped":
            line += f"  ({r['error']})"
        if r["status"] == "wrong" and r.get("probe_verified") is False:
            line += f"  ({r['probe']})"  # what the random probe found, and why
        print(line)


def _fmt(value: float | None, digits: int) -> str:
    return "" if value is None else figure_text(value, digits)


COMMAND = Command(
    "bench", "time variants at several sizes beside numpy", add_arguments, run, order=70
)
