"""``devices``: list the OpenCL devices, the default one marked, a simulator said to be one."""

from __future__ import annotations

import argparse
import json

from explorer.cli.command import Command, available_devices
from explorer.engine.executor import Executor
from explorer.engine.launch.devices import is_simulator, pick_device


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--json``."""
    parser.add_argument("--json", action="store_true")


def run(args: argparse.Namespace, executor: Executor) -> int:
    """Print every device with the facts that limit a configuration."""
    devices = available_devices(executor)
    if args.json:
        print(json.dumps([d.to_json() for d in devices], indent=2))
        return 0
    default = pick_device(devices, None)
    for i, d in enumerate(devices):
        mark = "*" if d == default else " "
        simulator = "  simulator: used only when named" if is_simulator(d) else ""
        print(
            f"{mark}[{i}] {d.key}  {d.shown_name}  ({d.type}, {d.platform}; {d.opencl_version})"
            f"{simulator}\n"
            f"       {d.compute_units} compute units, {d.clock_mhz} MHz, max work-group "
            f"{d.max_work_group_size}, local memory {d.local_mem_bytes // 1024} KiB, "
            f"global memory {d.global_mem_bytes / 2**30:.1f} GiB"
        )
    print("* default device (the window remembers a device by name, never by position)")
    return 0


COMMAND = Command("devices", "list OpenCL devices", add_arguments, run, order=10)
