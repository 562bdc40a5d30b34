"""``bench-trace``: time record + decode + analyse on the standard trace cases."""

from __future__ import annotations

import argparse
import json
import sys

from explorer.benchmarks.trace import TraceBenchError, bench_trace, bench_warm_trace
from explorer.cli.command import USAGE_ERROR, Command, executor_for, host_options
from explorer.engine.executor import Executor
from explorer.engine.records import EXIT_CODES
from explorer.selection import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--device``, ``--json``, and ``--small`` with its ``--rounds``."""
    parser.add_argument("--device")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--small",
        action="store_true",
        help="a small kernel's trace, warm, beside Oclgrind on the same launch (a ratio), "
        "and the trace command's own wall time; round 0 fills the caches",
    )
    parser.add_argument("--rounds", type=int, default=3, help="warm rounds of --small (default 3)")


def run(args: argparse.Namespace, executor: Executor) -> int:
    """One line (or JSON object) per case as it finishes; a case whose trace did not run
    stops the benchmark with its run's exit code. Each case uses its own executor."""
    if args.rounds < 1:
        raise UsageError("--rounds must be positive")

    def executors(env: dict[str, str] | None = None) -> Executor:
        return executor_for(args, env)

    where = host_options(args)
    records = (
        bench_warm_trace(args.device, args.rounds, executors=executors, where=where)
        if args.small
        else bench_trace(args.device, executors=executors)
    )
    try:
        for record in records:
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
