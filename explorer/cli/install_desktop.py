"""``install-desktop``: add the app to (or remove it from) a Linux desktop's menu."""

from __future__ import annotations

import argparse

from explorer import desktop
from explorer.cli.command import Command
from explorer.engine.executor import Executor


def run(args: argparse.Namespace, executor: Executor) -> int:
    """No OpenCL: the executor is never started."""
    return desktop.run(args)


COMMAND = Command(
    "install-desktop",
    "add the app to a Linux desktop's applications menu",
    desktop.add_arguments,
    run,
    order=80,
)
