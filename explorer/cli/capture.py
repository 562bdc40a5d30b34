"""``capture``: run a PyOpenCL program unchanged and record every kernel launch it makes."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from explorer.capture.folder import CapturedLaunch, CaptureError, load_capture
from explorer.capture.watch import capture_program
from explorer.cli.command import Command
from explorer.engine.executor import Executor
from explorer.selection import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The folder, the bounds, and the program's command line after ``--``."""
    parser.add_argument("out", metavar="OUT", help="the folder to record into (new or empty)")
    parser.add_argument(
        "--launches",
        type=_typed(launches_bound),
        metavar="N",
        help="keep the buffers of the first N launches only (later ones are listed without them)",
    )
    parser.add_argument(
        "--max-mb",
        type=_typed(max_mb_bound),
        metavar="M",
        help=(
            "keep at most M MiB of buffer contents (1024 by default; a launch past it is "
            "listed without them)"
        ),
    )
    parser.add_argument(
        "program",
        nargs=argparse.REMAINDER,
        metavar="-- COMMAND ...",
        help="the program to run, e.g. -- python host.py --size 64",
    )
    parser.description = (
        "Run a PyOpenCL program unchanged and record each kernel launch: its program source "
        "and options, NDRange, scalars, __local sizes and every buffer before and after it. "
        "The program's output and exit code are its own; the listing goes to stderr."
    )


# The most --launches and --max-mb say: beyond any program's launches, any disk.
MAX_LAUNCHES = 1 << 31
MAX_MB = 1 << 30  # a pebibyte


def launches_bound(text: str) -> int:
    """``--launches N``: a whole number from 0."""
    try:
        value = int(text.strip())
    except ValueError:
        raise UsageError(f"--launches {text!r}: expected a whole number, e.g. 20") from None
    if not 0 <= value <= MAX_LAUNCHES:
        raise UsageError(f"--launches {value}: expected 0 to {MAX_LAUNCHES}")
    return value


def max_mb_bound(text: str) -> float:
    """``--max-mb M``: a finite number of MiB from 0."""
    try:
        value = float(text.strip())
    except ValueError:
        raise UsageError(f"--max-mb {text!r}: expected a number of MiB, e.g. 200") from None
    if not math.isfinite(value) or not 0 <= value <= MAX_MB:
        raise UsageError(f"--max-mb {text}: expected a number of MiB from 0 to {MAX_MB}")
    return value


def _typed(check: Callable[[str], Any]) -> Callable[[str], Any]:
    """``check`` as an argparse type: its message, as a usage error (exit 2)."""

    def parse(text: str) -> Any:
        try:
            return check(text)
        except UsageError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


def program_and_bounds(args: argparse.Namespace) -> list[str]:
    """The program's command line. argparse hands everything after OUT to the program, the
    bounds given between OUT and ``--`` too: those are taken back here."""
    words = list(args.program)
    bounds: dict[str, tuple[str, Callable[[str], Any]]] = {
        "--launches": ("launches", launches_bound),
        "--max-mb": ("max_mb", max_mb_bound),
    }
    while words and words[0] != "--":
        name, sep, value = words[0].partition("=")
        if name not in bounds:
            break
        if not sep:
            if len(words) < 2:
                raise UsageError(f"{name} needs a value")
            value, words = words[1], words[1:]
        words = words[1:]
        attribute, check = bounds[name]
        setattr(args, attribute, check(value))
    if words and words[0] == "--":
        words = words[1:]
    if not words:
        raise UsageError("give the program after --, e.g. capture OUT -- python host.py")
    return words


def run(args: argparse.Namespace, executor: Executor) -> int:
    """Run the program, list what was recorded (on stderr), return the program's exit code."""
    command = program_and_bounds(args)
    folder = Path(args.out)
    code, lost = capture_program(folder, command, args.launches, args.max_mb)
    try:
        capture = load_capture(folder)
    except CaptureError as exc:  # the record is lost (a full disk); the program's code stands
        print(f"capture: nothing could be read back from {folder}: {exc}", file=sys.stderr)
    else:
        print(listing(capture.launches, folder), file=sys.stderr)
        lost = list(dict.fromkeys((*capture.lost, *lost)))
    if lost:
        print("capture: not everything could be recorded:", file=sys.stderr)
        print("\n".join(f"  {line}" for line in lost), file=sys.stderr)
    return code


# Up to this many launches are listed one per line; more are summarised.
LISTED = 50
HEAD, TAIL = 20, 10


def listing(launches: tuple[CapturedLaunch, ...], folder: Path) -> str:
    """One line per launch (the first and last ones of a long capture, and a summary of the
    rest), and how to replay one."""
    if not launches:
        return (
            f"capture: no kernel launch was recorded into {folder} (the program made none, "
            "did not import pyopencl, or ran Python with -E or -I)"
        )
    lines = [f"capture: {len(launches)} launches recorded into {folder}"]
    shown = launches if len(launches) <= LISTED else (*launches[:HEAD], *launches[-TAIL:])
    for launch in shown:
        if len(launches) > LISTED and launch is launches[-TAIL]:
            lines.extend(_summary(launches[HEAD:-TAIL]))
        local = "x".join(map(str, launch.local_size)) if launch.local_size else "driver's"
        sizes = f"{'x'.join(map(str, launch.global_size))} / {local}"
        kept = "" if launch.data else f"  (without its buffers: {launch.why})"
        lines.append(f"  {launch.number:>4}  {launch.label:<28} {sizes}{kept}")
    lines.append(f"Replay one: python -m explorer run --capture {folder} --launch N (or KERNEL#k)")
    return "\n".join(lines)


def _summary(middle: tuple[CapturedLaunch, ...]) -> list[str]:
    """The launches between the first and last listed: how many of each kernel, and how many
    were kept without their buffers and why (the first reason of each kind)."""
    kernels: dict[str, int] = {}
    reasons: dict[str, int] = {}
    for launch in middle:
        kernels[launch.kernel] = kernels.get(launch.kernel, 0) + 1
        if not launch.data:
            reason = launch.why.split(" (")[0] if "would pass" in launch.why else launch.why
            reasons[reason] = reasons.get(reason, 0) + 1
    counts = ", ".join(f"{name} {count}" for name, count in list(kernels.items())[:8])
    more = f", and {len(kernels) - 8} more kernels" if len(kernels) > 8 else ""
    lines = [
        f"  ....  launches {middle[0].number} to {middle[-1].number} ({len(middle)}): "
        f"{counts}{more}"
    ]
    for reason, count in list(reasons.items())[:3]:
        lines.append(f"        {count} of them without their buffers: {reason}")
    return lines


COMMAND = Command(
    "capture", "run a PyOpenCL program and record its kernel launches", add_arguments, run, order=48
)
