"""``capture-save``: one captured launch as a standalone kernel file with its arrays beside it."""

from __future__ import annotations

import argparse
from pathlib import Path

from explorer.capture.folder import load_capture
from explorer.capture.replay import save_launch
from explorer.cli.command import Command
from explorer.engine.executor import Executor


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The capture folder, the launch and the folder to write into."""
    parser.add_argument("capture", metavar="OUT", help="a folder written by capture")
    parser.add_argument(
        "--launch", required=True, help="the launch: its number N, KERNEL or KERNEL#k"
    )
    parser.add_argument(
        "--out",
        required=True,
        metavar="DIR",
        help="the folder to write into (no file already there is replaced)",
    )
    parser.add_argument(
        "--allow-outside",
        "--allow-outside-includes",
        dest="allow_outside",
        action="store_true",
        help="save a program whose #include lines name files outside the capture folder",
    )


def run(args: argparse.Namespace, executor: Executor) -> int:
    """Write the kernel file and its .npy files; print how to run it."""
    capture = load_capture(args.capture)
    kernel_file = save_launch(
        capture, args.launch, Path(args.out), allow_outside=args.allow_outside
    )
    print(f"wrote {kernel_file}")
    print(f"run it: python -m explorer run --kernel-file {kernel_file}")
    return 0


COMMAND = Command(
    "capture-save",
    "write one captured launch as a kernel file with its inputs and expected outputs",
    add_arguments,
    run,
    order=49,
)
