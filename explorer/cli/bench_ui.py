"""``bench-ui``: repaint cost of the animation, offscreen."""

from __future__ import annotations

import argparse
import json

from explorer.benchmarks.ui import bench_ui
from explorer.cli.command import Command
from explorer.cli.options import UsageError
from explorer.engine.executor import Executor


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--size``, ``--device`` and ``--json``."""
    parser.add_argument("--size", type=int, default=768, help="IOU matmul size (default 768)")
    parser.add_argument("--device")
    parser.add_argument("--json", action="store_true")


def run(args: argparse.Namespace, executor: Executor) -> int:
    """Open the window offscreen (its own executor), play the animation, print the figures."""
    if args.size < 16:
        raise UsageError("--size must be at least 16")
    record = bench_ui(args.size, args.device).to_json()
    if args.json:
        print(json.dumps(record))
    else:
        for key, value in record.items():
            print(f"{key}: {value}")
    return 0


COMMAND = Command(
    "bench-ui", "repaint cost of the animation (offscreen)", add_arguments, run, order=60
)
