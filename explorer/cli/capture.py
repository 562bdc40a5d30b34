"""``capture``: run a PyOpenCL program unchanged and record every kernel launch it makes.

The command's work is :mod:`explorer.capture.command_line`'s, which ``python -m explorer
capture`` reaches before anything else of the explorer is imported; this module gives it to
the whole command-line interface (``--help``, the installed ``kernel-explorer-cli``).
"""

from __future__ import annotations

import argparse

from explorer.capture.command_line import add_arguments, run
from explorer.cli.command import Command
from explorer.engine.executor import Executor


def run_command(args: argparse.Namespace, executor: Executor) -> int:
    """Run the program, list what was recorded (on stderr), return the program's exit code
    (the capture needs no executor: the program runs OpenCL itself)."""
    return run(args)


COMMAND = Command(
    "capture",
    "run a PyOpenCL program and record its kernel launches",
    add_arguments,
    run_command,
    order=48,
)
