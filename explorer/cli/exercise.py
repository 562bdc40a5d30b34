"""``exercise``: the shipped exercises, and grading an attempt at one.

``exercise list`` names them in order; ``exercise check NAME FILE`` runs, verifies and traces
FILE (the learner's copy of the exercise's starting kernel) on the device and prints each
check. Exit codes of ``check``: 0 passed, 1 not passed, 2 usage error (an unknown exercise,
a file that cannot be read). The solution's text is never printed.
"""

from __future__ import annotations

import argparse
import json
import textwrap

from explorer.cli.command import Command, available_devices
from explorer.engine.executor import Executor
from explorer.engine.launch.devices import pick_device
from explorer.exercises import exercises, find_exercise, grade
from explorer.paths import UserFileError, read_user_text
from explorer.selection import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``list [--json]`` and ``check NAME FILE [--json] [--device ...]``."""
    parser.description = (
        "The exercises: kernels with a gap or a bug to fix, graded on the device. "
        "check exits 0 when the attempt passes, 1 when it does not, 2 on a usage error."
    )
    actions = parser.add_subparsers(dest="action", required=True)
    listing = actions.add_parser("list", help="the exercises, in order")
    listing.add_argument("--json", action="store_true", help="print one JSON object")
    check = actions.add_parser("check", help="grade your attempt at one exercise")
    check.add_argument("name", help="the exercise's name (see `exercise list`) or number")
    check.add_argument("file", help="your kernel file (start from the exercise's start.cl)")
    check.add_argument("--device", help="device: platform:device key, index or name substring")
    check.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace, executor: Executor) -> int:
    if args.action == "list":
        return _list(args.json)
    return _check(args, executor)


def _list(as_json: bool) -> int:
    shipped = exercises()
    if as_json:
        print(json.dumps({"exercises": [e.to_json() for e in shipped]}))
        return 0
    for e in shipped:
        print(f"{e.number:2d}. {e.name:<22} {e.title}")
    print("\nStart from an exercise's start.cl (its path: exercise list --json), then run")
    print("  python -m explorer exercise check NAME YOUR_FILE.cl")
    return 0


def _check(args: argparse.Namespace, executor: Executor) -> int:
    exercise = find_exercise(args.name)  # an ExerciseError is a ValueError: exit 2
    try:
        source = read_user_text(args.file, "kernel file")
    except UserFileError as exc:
        raise UsageError(str(exc)) from None
    device = pick_device(available_devices(executor), args.device)
    result = grade(exercise, source, executor, device.key, path=args.file)
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        print(f"{exercise.number}. {exercise.title}  (on {device.name})")
        for line in result.text().splitlines():
            print(textwrap.fill(line, 100, subsequent_indent="        "))
    return 0 if result.passed else 1


COMMAND = Command(
    "exercise", "the exercises: list them, or grade your attempt", add_arguments, run, order=46
)
