"""What a sub-command of ``python -m explorer`` is, and the little every command shares.

A command is one module of this package holding one :class:`Command`: its name, its one-line
help, how it adds its options and how it runs. ``explorer.cli`` lists those modules; nothing
else needs to know a command exists.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass

from explorer.engine.executor import Executor
from explorer.engine.launch.devices import NO_PLATFORM_HELP, NoDeviceError
from explorer.engine.records import DeviceInfo

USAGE_ERROR = 2


@dataclass(frozen=True)
class Command:
    """One sub-command. ``run`` gets the parsed options and an executor that starts its
    process only when first asked for OpenCL work, so commands without OpenCL cost nothing;
    it returns the exit code. ``order`` places it in ``--help``."""

    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace, Executor], int]
    order: int


def available_devices(executor: Executor) -> list[DeviceInfo]:
    """Every OpenCL device the executor sees; none is an environment error that says how
    to install one."""
    devices = executor.devices()
    if not devices:
        raise NoDeviceError(NO_PLATFORM_HELP)
    return devices
