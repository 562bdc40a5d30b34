"""``bench-ui``: repaint cost of the animation, or Trace pressed → first frame, offscreen."""

from __future__ import annotations

import argparse
import json

from explorer.benchmarks.ui import bench_first_frame, bench_ui
from explorer.cli.command import Command, host_of
from explorer.engine.executor import Executor
from explorer.selection import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--size``, ``--device``, ``--json``, ``--first-frame`` and ``--presses``."""
    parser.add_argument("--size", type=int, default=768, help="IOU matmul size (default 768)")
    parser.add_argument("--device")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--first-frame",
        action="store_true",
        help="time Trace pressed → the animation's first frame instead of the repaints",
    )
    parser.add_argument(
        "--presses", type=int, default=4, help="Trace presses with --first-frame (default 4)"
    )


def run(args: argparse.Namespace, executor: Executor) -> int:
    """Open the window offscreen (its own executor), play the animation or press Trace,
    print the figures."""
    if args.size < 16:
        raise UsageError("--size must be at least 16")
    if args.first_frame:
        if args.presses < 2:
            raise UsageError("--presses must be at least 2 (the first press is reported apart)")
        frame = bench_first_frame(args.size, args.device, args.presses, host_of(args))
        print(json.dumps(frame.to_json()) if args.json else frame.summary())
        return 0
    record = bench_ui(args.size, args.device, host_of(args)).to_json()
    if args.json:
        print(json.dumps(record))
    else:
        for key, value in record.items():
            print(f"{key}: {value}")
    return 0


COMMAND = Command(
    "bench-ui",
    "repaint cost of the animation, or Trace → first frame (offscreen)",
    add_arguments,
    run,
    order=60,
)
