"""The ``capture`` command: its options, its run and the listing it prints.

``python -m explorer capture OUT -- COMMAND`` reaches :func:`early` before anything else of
the explorer is imported (the engine, the families, numpy): the program starts at once, and
what ``capture`` pays besides the program's own time is little more than starting Python.
``explorer.cli.capture`` gives the same options and run to the whole command-line interface
(``--help``, an installed ``kernel-explorer-cli``, the tests' in-process calls).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from types import SimpleNamespace

from explorer.capture.watch import capture_program
from explorer.paths import shown

# typing is not imported: ``capture``'s own process needs none of it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from typing import Any

    # The options as parsed: by argparse, or by :func:`early` (which imports no argparse).
    Options = argparse.Namespace | SimpleNamespace

USAGE_ERROR = 2
INTERRUPTED = 130  # Ctrl+C, as a shell reports a command ended by SIGINT

# The most --launches and --max-mb say: beyond any program's launches, any disk.
MAX_LAUNCHES = 1 << 31
MAX_MB = 1 << 30  # a pebibyte


class CommandLineError(ValueError):
    """A ``capture`` command line that cannot be run as given; the message says what to change."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The folder, the bounds, and the program's command line after ``--``."""
    import argparse

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
        "The program's output and exit code are its own; the listing goes to stderr. "
        "Without a program, OUT's launches are listed as a capture recorded them."
    )


def launches_bound(text: str) -> int:
    """``--launches N``: a whole number from 0."""
    try:
        value = int(text.strip())
    except ValueError:
        raise CommandLineError(f"--launches {text!r}: expected a whole number, e.g. 20") from None
    if not 0 <= value <= MAX_LAUNCHES:
        raise CommandLineError(f"--launches {value}: expected 0 to {MAX_LAUNCHES}")
    return value


def max_mb_bound(text: str) -> float:
    """``--max-mb M``: a finite number of MiB from 0."""
    try:
        value = float(text.strip())
    except ValueError:
        raise CommandLineError(f"--max-mb {text!r}: expected a number of MiB, e.g. 200") from None
    if not math.isfinite(value) or not 0 <= value <= MAX_MB:
        raise CommandLineError(f"--max-mb {text}: expected a number of MiB from 0 to {MAX_MB}")
    return value


def _typed(check: Callable[[str], Any]) -> Callable[[str], Any]:
    """``check`` as an argparse type: its message, as a usage error (exit 2)."""

    def parse(text: str) -> Any:
        import argparse

        try:
            return check(text)
        except CommandLineError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


_BOUNDS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "--launches": ("launches", launches_bound),
    "--max-mb": ("max_mb", max_mb_bound),
}


def program_and_bounds(args: Options) -> list[str]:
    """The program's command line. argparse hands everything after OUT to the program, the
    bounds given between OUT and ``--`` too: those are taken back here."""
    words = list(args.program)
    while words and words[0] != "--":
        name, sep, value = words[0].partition("=")
        if name not in _BOUNDS:
            break
        if not sep:
            if len(words) < 2:
                raise CommandLineError(f"{name} needs a value")
            value, words = words[1], words[1:]
        words = words[1:]
        attribute, check = _BOUNDS[name]
        setattr(args, attribute, check(value))
    if words and words[0] == "--":
        words = words[1:]
    if not words:
        raise CommandLineError("give the program after --, e.g. capture OUT -- python host.py")
    return words


def run(args: Options) -> int:
    """Run the program, list what was recorded (on stderr), return the program's exit code.
    Without a program, a folder that is there is listed as it was recorded (on stdout)."""
    if not [word for word in args.program if word != "--"] and Path(args.out).is_dir():
        return list_folder(Path(args.out))
    command = program_and_bounds(args)
    folder = Path(args.out)
    code, lost, document = capture_program(folder, command, args.launches, args.max_mb)
    if document is None:  # the record is lost (a full disk); the program's code stands
        print(f"capture: nothing could be read back from {folder}", file=sys.stderr)
    else:
        print(listing(listed(document), folder), file=sys.stderr)
    if lost:
        print("capture: not everything could be recorded:", file=sys.stderr)
        print("\n".join(f"  {line}" for line in lost), file=sys.stderr)
    return code


# -- the listing -----------------------------------------------------------------------------


def list_folder(folder: Path) -> int:
    """``capture OUT`` of a folder a capture made: its launches, read and checked as a replay
    reads them (a folder may come from anyone); 2 where it is not one."""
    from explorer.capture.folder import CaptureError, load_capture

    try:
        capture = load_capture(folder)
    except CaptureError as exc:
        print(
            f"capture: {exc}\n(capture OUT -- COMMAND records a program into OUT; "
            "capture OUT alone lists what one recorded there)",
            file=sys.stderr,
        )
        return 2
    launches = [
        Listed(
            launch.number,
            _printable(launch.kernel),
            _printable(launch.label),
            launch.global_size,
            launch.local_size,
            launch.data,
            _printable(launch.why),
        )
        for launch in capture.launches
    ]
    print(listing(launches, folder))
    for line in capture.lost:
        print(f"  not everything was recorded: {_printable(line)}")
    return 0


def _printable(text: str) -> str:
    """A folder's text without its control characters: none of its escape codes reaches
    the terminal (the folder may come from anyone)."""
    return "".join(c if c.isprintable() else " " for c in text)


class Listed:
    """What the listing says of one launch."""

    __slots__ = ("data", "global_size", "kernel", "label", "local_size", "number", "why")

    def __init__(
        self,
        number: int,
        kernel: str,
        label: str,  # KERNEL#k
        global_size: tuple[Any, ...],
        local_size: tuple[Any, ...] | None,
        data: bool,
        why: str,
    ) -> None:
        self.number = number
        self.kernel = kernel
        self.label = label
        self.global_size = global_size
        self.local_size = local_size
        self.data = data
        self.why = why


def listed(document: dict[str, Any]) -> list[Listed]:
    """The launches of ``capture.json`` as just made (``journal.assemble``), for the
    listing: read as they are, a field of another kind shown as it is (the record is checked
    where it is read to be replayed). Of a capture of many launches, each the text of its
    entry (``journal.RawLaunches``), only those the listing shows are parsed; of the others,
    the summary needs the kernel and, for one without its buffers, why."""
    from explorer.capture.journal import raw_kernel

    found: list[Listed] = []
    launches = document.get("launches") or ()
    # The kernel each names, where assemble read them (else read here).
    kernels = getattr(launches, "kernels", None)
    if kernels is not None and len(kernels) != len(launches):
        kernels = None
    data = '"data": true'
    ended = data + "}"  # where a recorder's line has it
    for position, entry in enumerate(launches, 1):
        if isinstance(entry, str):
            middle = HEAD < position <= len(launches) - TAIL
            kernel = raw_kernel(entry) if kernels is None else kernels[position - 1]
            if middle and kernel is not None and (entry.endswith(ended) or data in entry):
                found.append(Listed(position, kernel, kernel, (), None, True, ""))
                continue
            import json

            try:
                entry = json.loads(entry)
            except (ValueError, RecursionError):
                continue
        if not isinstance(entry, dict):
            continue
        kernel = str(entry.get("kernel"))
        sizes, local = entry.get("global"), entry.get("local")
        if local is not None and not isinstance(local, list):
            local = [local]
        found.append(
            Listed(
                number=entry["number"] if isinstance(entry.get("number"), int) else position,
                kernel=kernel,
                label=f"{kernel}#{entry.get('occurrence')}",
                global_size=tuple(sizes) if isinstance(sizes, list) else (sizes,),
                local_size=None if local is None else tuple(local),
                data=entry.get("data") is True,
                why=str(entry.get("why") or ""),
            )
        )
    return found


# Up to this many launches are listed one per line; more are summarised.
LISTED = 50
HEAD, TAIL = 20, 10


def listing(launches: Sequence[Listed], folder: Path) -> str:
    """One line per launch (the first and last ones of a long capture, and a summary of the
    rest), and how to replay one."""
    if not launches:
        return (
            f"capture: no kernel launch was recorded into {folder} (the program made none, "
            "did not import pyopencl, or ran Python with -E or -I)"
        )
    count = f"{len(launches)} launch" + ("es" if len(launches) > 1 else "")
    lines = [f"capture: {count} recorded into {folder}"]
    long = len(launches) > LISTED
    shown_ones = [*launches[:HEAD], *launches[-TAIL:]] if long else list(launches)
    width = max(4, len(str(launches[-1].number)))
    for position, launch in enumerate(shown_ones):
        if long and position == HEAD:
            lines.extend(_summary(launches[HEAD:-TAIL]))
        local = "x".join(map(str, launch.local_size)) if launch.local_size else "driver's"
        sizes = f"{'x'.join(map(str, launch.global_size))} / {local}"
        kept = "" if launch.data else f"  (without its buffers: {launch.why})"
        lines.append(f"  {launch.number:>{width}}  {shown(launch.label, 80):<28} {sizes}{kept}")
    lines.append(f"Replay one: python -m explorer run --capture {folder} --launch N (or KERNEL#k)")
    return "\n".join(lines)


def _summary(middle: Sequence[Listed]) -> list[str]:
    """The launches between the first and last listed: how many of each kernel, and how many
    were kept without their buffers and why (the first reason of each kind)."""
    kernels: dict[str, int] = {}
    reasons: dict[str, int] = {}
    for launch in middle:
        kernels[launch.kernel] = kernels.get(launch.kernel, 0) + 1
        if not launch.data:
            reason = launch.why.split(" (")[0] if "would pass" in launch.why else launch.why
            reasons[reason] = reasons.get(reason, 0) + 1
    counts = ", ".join(f"{shown(name, 80)} {count}" for name, count in list(kernels.items())[:8])
    more = f", and {len(kernels) - 8} more kernels" if len(kernels) > 8 else ""
    lines = [
        f"  ....  launches {middle[0].number} to {middle[-1].number} ({len(middle)}): "
        f"{counts}{more}"
    ]
    for reason, count in list(reasons.items())[:3]:
        lines.append(f"        {count} of them without their buffers: {shown(reason, 300)}")
    return lines


# -- started first -----------------------------------------------------------------------------


def early(argv: Sequence[str]) -> None:
    """``python -m explorer capture ARGS``, before the rest of the explorer is imported: runs
    the command and exits with its code. Returns (to the whole command-line interface) where
    the command line holds more than the folder, the bounds and ``--`` before the program:
    ``--help``, another machine's options, a word it does not take."""
    args = _plain(argv)
    if args is not None:
        sys.exit(_run_reporting(args))


def _plain(argv: Sequence[str]) -> SimpleNamespace | None:
    """``argv`` as the parser of :func:`add_arguments` reads it, where it is ``OUT`` and
    ``--launches``/``--max-mb`` with their values (in any order), ``--`` and the program;
    None for any other command line. A bound's value is checked when the command runs."""
    words = list(argv)
    if "--" not in words:
        return None
    options, program = words[: words.index("--")], words[words.index("--") :]
    out: list[str] = []
    bounds: list[str] = []  # given to program_and_bounds, which checks them
    while options:
        word = options.pop(0)
        name, sep, _ = word.partition("=")
        if name in _BOUNDS:
            if not sep:
                if not options:
                    return None
                word = f"{word}={options.pop(0)}"
            bounds.append(word)
        elif word.startswith("-") or out:
            return None
        else:
            out.append(word)
    if not out:
        return None
    return SimpleNamespace(out=out[0], launches=None, max_mb=None, program=[*bounds, *program])


def _run_reporting(args: Options) -> int:
    """:func:`run`, its usage and environment errors one ``error:`` line (exit 2), as the
    whole command-line interface reports them."""
    try:
        return run(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return INTERRUPTED
    except ValueError as exc:  # CommandLineError, CaptureError
        print(f"error: {shown(str(exc), 600)}", file=sys.stderr)
        return USAGE_ERROR
    except BrokenPipeError:
        sys.stderr.close()
        return 0
    except OSError as exc:
        print(f"error: {exc.strerror or type(exc).__name__}", file=sys.stderr)
        return USAGE_ERROR
