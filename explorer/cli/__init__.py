"""``python -m explorer``: devices, variants, run, trace and the benchmarks, over the same
engine as the app.

Each sub-command is one module of this package holding ``COMMAND``, a
:class:`~explorer.cli.command.Command`; :data:`COMMANDS` is found by walking the package, and
this module only builds the parser from it and dispatches. Adding a command is adding its
module.

Exit codes: 0 verified, 1 wrong result, 2 usage or environment error, 3 refused,
4 crashed or timed out, 130 interrupted (Ctrl+C).
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from explorer.cli.command import INTERRUPTED, USAGE_ERROR, Command, add_host_arguments, executor_for
from explorer.engine.executor import Executor, ExecutorError
from explorer.engine.header.catalog import CatalogError
from explorer.engine.launch.devices import NoDeviceError
from explorer.engine.records import EXIT_CODES
from explorer.paths import shown
from explorer.selection import UsageError


def _discover() -> tuple[Command, ...]:
    found = []
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        command = getattr(module, "COMMAND", None)
        if isinstance(command, Command):
            found.append(command)
    return tuple(sorted(found, key=lambda c: (c.order, c.name)))


COMMANDS: tuple[Command, ...] = _discover()


def build_parser() -> argparse.ArgumentParser:
    """The parser of every command in :data:`COMMANDS`, in that order."""
    parser = argparse.ArgumentParser(
        prog="python -m explorer",
        description="Run, verify and time OpenCL kernels (OpenCL Kernel Explorer).",
        epilog="Exit codes: 0 verified, 1 wrong result, 2 usage or environment error, "
        "3 refused, 4 crashed or timed out, 130 interrupted (Ctrl+C).",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command_parser = sub.add_parser(command.name, help=command.help)
        command.add_arguments(command_parser)
        add_host_arguments(command_parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` (default: the process's arguments), run the command, return its exit
    code; usage and environment errors are one ``error:`` line on stderr, never a traceback.
    Ctrl+C ends any command: its executor is stopped, and the code is 130."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return INTERRUPTED


def _main(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    command = next(c for c in COMMANDS if c.name == args.command)
    try:
        # Its process starts on the first OpenCL request.
        with executor_for(args, local=Executor) as executor:
            return command.run(args, executor)
    except (UsageError, CatalogError, NoDeviceError, ValueError) as exc:
        print(f"error: {shown(str(exc), 600)}", file=sys.stderr)
        return USAGE_ERROR
    except BrokenPipeError:  # e.g. `python -m explorer variants | head`
        sys.stderr.close()
        return 0
    except ExecutorError as exc:
        print(f"error: {shown(str(exc), 600)}", file=sys.stderr)
        return EXIT_CODES.get("crashed", 4) if exc.kind in ("crash", "timeout") else USAGE_ERROR
    except OSError as exc:  # the terminal or a file the command writes
        print(f"error: {exc.strerror or type(exc).__name__}", file=sys.stderr)
        return USAGE_ERROR


__all__ = ["COMMANDS", "build_parser", "main"]
