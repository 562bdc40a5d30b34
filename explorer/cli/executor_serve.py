"""``executor-serve``: the executor for a window on another machine, spoken to over standard
input and output (what ``--host`` starts there through ``ssh``)."""

from __future__ import annotations

import argparse

from explorer.cli.command import Command
from explorer.engine.executor import Executor


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No options of its own: everything comes through the connection."""


def run(args: argparse.Namespace, executor: Executor) -> int:
    from explorer.engine.remote.server import serve

    return serve()


COMMAND = Command(
    "executor-serve",
    "serve a remote window's OpenCL work over standard input and output (--host starts it)",
    add_arguments,
    run,
    order=200,
)
