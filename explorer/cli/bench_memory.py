"""``bench-memory``: resident memory after many runs against after ten, as a ratio."""

from __future__ import annotations

import argparse
import json

from explorer.benchmarks.memory import BASELINE_RUNS, bench_memory
from explorer.cli.bench import bench_exit_code
from explorer.cli.command import Command
from explorer.engine.executor import Executor
from explorer.selection import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--size``, ``--runs``, ``--device`` and ``--json``."""
    parser.add_argument("--size", type=int, default=768, help="matmul size (default 768)")
    parser.add_argument("--runs", type=int, default=100, help="runs in all (default 100)")
    parser.add_argument("--device", help="device: platform:device key, index or name substring")
    parser.add_argument("--json", action="store_true", help="print one JSON line")


def run(args: argparse.Namespace, executor: Executor) -> int:
    """Run, keep each result as the window does, print the memory figures."""
    if not 16 <= args.size <= 16384:
        raise UsageError("--size from 16 to 16384")
    if not BASELINE_RUNS < args.runs <= 100_000:
        raise UsageError(f"--runs from {BASELINE_RUNS + 1} to 100000")
    growth = bench_memory(executor, args.size, args.runs, args.device)
    record = growth.to_json()
    if args.json:
        print(json.dumps(record))
    else:
        for key, value in record.items():
            print(f"{key}: {value}")
    return bench_exit_code(list(growth.statuses))


COMMAND = Command(
    "bench-memory",
    "memory after many runs against after ten (the window's history)",
    add_arguments,
    run,
    order=65,
)
