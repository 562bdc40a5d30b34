"""``check``: run one configuration on Oclgrind, a simulator with its race, uninitialised-read
and invalid-access checks switched on; a second opinion beside ``trace``.

Exit codes: 0 Oclgrind reported nothing and the result verified, 1 it reported problems or
the result was wrong, 2 usage or environment error (no Oclgrind platform, a build error),
3 refused, 4 the kernel ran past the timeout, 5 Oclgrind itself crashed or failed (its fault,
not the kernel's). Where Oclgrind verifies the result, the configuration also runs on the
default device: a wrong result there is reported as the device's disagreement.
"""

from __future__ import annotations

import argparse
import dataclasses
import json

from explorer.cli.command import USAGE_ERROR, Command, executor_for
from explorer.engine.executor import Executor
from explorer.engine.launch.devices import default_device, pick_device
from explorer.engine.record.oclgrind import (
    CHECK_ENV,
    OclgrindCheck,
    against,
    find_oclgrind,
)
from explorer.engine.records import EXIT_CODES, RunRequest, result_record
from explorer.engine.second_opinion import run_check
from explorer.selection import UsageError, add_selection, request_from_args, selected_variant

OCLGRIND_CRASHED = 5
NO_OCLGRIND = 'no Oclgrind platform: pip install "pyopencl[oclgrind]" (or the oclgrind package)'


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The selection (``--device`` must name an Oclgrind device; by default the first one),
    ``--json``."""
    add_selection(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.description = (
        "Run the configuration once on Oclgrind with its checks on. Exit codes: 0 nothing "
        "reported and verified, 1 problems reported or a wrong result, 2 usage or environment "
        "error, 3 refused, 4 timed out, 5 Oclgrind itself crashed."
    )


def exit_code(outcome: OclgrindCheck) -> int:
    """The command's exit code for ``outcome`` (see the module's docstring)."""
    result = outcome.result
    if outcome.crashed:
        return OCLGRIND_CRASHED
    if result.status == "error":
        return USAGE_ERROR if result.error_kind in ("build", "input", "environment") else 1
    if result.status in ("refused", "timeout", "crashed"):
        return EXIT_CODES[result.status]
    return 1 if outcome.messages or result.status == "wrong" else 0


def to_json(outcome: OclgrindCheck) -> dict[str, object]:
    """The ``--json`` object: the run's record, Oclgrind's verdict, its problems grouped by
    kind and line, and every message."""
    return {
        "verdict": outcome.verdict,
        "oclgrind_crashed": outcome.crashed,
        "device_disagrees": outcome.device_disagrees,
        "device_result": result_record(outcome.device_result) if outcome.device_result else None,
        "result": result_record(outcome.result),
        "problems": [
            {"kind": kind, "line": line, "messages": n} for kind, line, n in outcome.problems()
        ],
        "messages": [
            {"kind": m.kind, "line": m.line, "entity": m.entity} for m in outcome.messages
        ],
    }


def _against_the_default_device(
    outcome: OclgrindCheck, request: RunRequest, executor: Executor
) -> OclgrindCheck:
    """Where Oclgrind verifies the result, the same configuration on the device runs default
    to (when that is not Oclgrind): a wrong result there is the device's disagreement."""
    if outcome.result.status != "verified" or outcome.messages:
        return outcome
    devices = [d for d in executor.devices() if find_oclgrind([d]) is None]
    if not devices:
        return outcome
    device = default_device(devices)
    return against(outcome, executor.run(dataclasses.replace(request, device_key=device.key)))


def run(args: argparse.Namespace, executor: Executor) -> int:
    """Check on Oclgrind and print the verdict (or one JSON object)."""
    selected_variant(args)  # usage errors before any OpenCL work
    with executor_for(args, env=CHECK_ENV) as checker:  # Oclgrind reads them at start-up
        devices = checker.devices()
        if args.device:
            device = pick_device(devices, args.device)
            if find_oclgrind([device]) is None:
                raise UsageError(f"{device.name} ({device.platform}) is not an Oclgrind device")
        else:
            found = find_oclgrind(devices)
            if found is None:
                raise UsageError(NO_OCLGRIND)
            device = found
        request = request_from_args(args, device.key)
        outcome = run_check(checker, dataclasses.replace(request, repeat=1))
    outcome = _against_the_default_device(outcome, request, executor)
    if args.json:
        print(json.dumps(to_json(outcome)))
    else:
        print(outcome.result.summary())
        print(outcome.verdict)
        for kind, line, n in outcome.problems():
            where = f"line {line}" if line is not None else "(no line)"
            print(f"  {where}: {kind} ({n} message{'s' if n != 1 else ''})")
    return exit_code(outcome)


COMMAND = Command(
    "check", "run one configuration on Oclgrind with its checks on", add_arguments, run, order=45
)
