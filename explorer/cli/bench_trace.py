"""``bench-trace``: time record + decode + analyse on the standard trace cases."""

from __future__ import annotations

import argparse
import json
import sys

from explorer.benchmarks.trace import TraceBenchError, bench_trace
from explorer.cli.command import USAGE_ERROR, Command
from explorer.engine.executor import Executor
from explorer.engine.records import EXIT_CODES


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--device`` and ``--json``."""
    parser.add_argument("--device")
    parser.add_argument("--json", action="store_true")


def run(args: argparse.Namespace, executor: Executor) -> int:
    """One line (or JSON object) per case as it finishes; a case whose trace did not run
    stops the benchmark with its run's exit code. Each case uses its own executor."""
    try:
        for record in bench_trace(args.device):
            print(json.dumps(record.to_json()) if args.json else record.summary(), flush=True)
    except TraceBenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_CODES.get(exc.status, USAGE_ERROR)
    return 0


COMMAND = Command(
    "bench-trace",
    "time record + decode + analyse on the standard trace cases",
    add_arguments,
    run,
    order=50,
)
