"""``python -m explorer``: devices, variants, run, trace and the benchmarks, over the same
engine as the app.

Each sub-command is one module of this package holding ``COMMAND``, a
:class:`~explorer.cli.command.Command`; :data:`COMMANDS` is found by walking the package, and
this module only builds the parser from it and dispatches. Adding a command is adding its
module. A command typed by its name imports only its own module (``bench-trace`` is
``bench_trace``): the others' imports would only delay it.

Exit codes: 0 verified, 1 wrong result, 2 usage or environment error (a host without this
version of the explorer among them: the message gives the command with ``--install``),
3 refused, 4 crashed or timed out, 130 interrupted (Ctrl+C).
"""

from __future__ import annotations

import argparse
import atexit
import importlib
import os
import pkgutil
import shlex
import sys
import threading
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, cast

from explorer.cli.command import (
    INTERRUPTED,
    USAGE_ERROR,
    Command,
    add_host_arguments,
    executor_for,
    install_if_asked,
    with_install,
)
from explorer.engine import stage_times
from explorer.engine.executor import Executor, ExecutorError
from explorer.engine.header.catalog import CatalogError
from explorer.engine.launch.devices import NoDeviceError
from explorer.engine.records import EXIT_CODES
from explorer.paths import shown
from explorer.selection import UsageError

if TYPE_CHECKING:
    from explorer.engine.remote.install import HostNeedsInstall


@cache
def _discover() -> tuple[Command, ...]:
    found = []
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        command = getattr(module, "COMMAND", None)
        if isinstance(command, Command):
            found.append(command)
    return tuple(sorted(found, key=lambda c: (c.order, c.name)))


def __getattr__(name: str) -> tuple[Command, ...]:
    if name == "COMMANDS":  # every command, found on first use
        return _discover()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _commands() -> tuple[Command, ...]:
    """:data:`COMMANDS`, or the commands a caller set it to (an older command line, say)."""
    assigned: tuple[Command, ...] | None = globals().get("COMMANDS")
    return _discover() if assigned is None else assigned


def _typed(argv: Sequence[str]) -> Command | None:
    """The command ``argv`` names, from its own module alone; None when it names none."""
    name = argv[0] if argv else ""
    module_name = name.replace("-", "_")
    if not module_name.isidentifier() or module_name in ("command", "__init__"):
        return None
    try:
        module = importlib.import_module(f"{__name__}.{module_name}")
    except ImportError:
        return None
    command = getattr(module, "COMMAND", None)
    return command if isinstance(command, Command) and command.name == name else None


def build_parser(commands: Sequence[Command] | None = None) -> argparse.ArgumentParser:
    """The parser of ``commands`` (default: every command in :data:`COMMANDS`), in order."""
    parser = argparse.ArgumentParser(
        prog="python -m explorer",
        description="Run, verify and time OpenCL kernels (OpenCL Kernel Explorer).",
        epilog="Exit codes: 0 verified, 1 wrong result, 2 usage or environment error (a "
        "host without this version of the explorer: rerun with --install), 3 refused, "
        "4 crashed or timed out, 130 interrupted (Ctrl+C).",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for command in _commands() if commands is None else commands:
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


# The command main() ran last (for end_at_once).
_ran: Command | None = None


def end_at_once(code: int) -> None:
    """End ``python -m explorer`` with ``code`` now where the command that ran writes nothing
    but its output (``Command.ends_at_once``): as any exit does, its threads are waited for,
    the exit handlers run and standard output and error flushed, but the interpreter does
    not then tear down every module and object it holds (30-60 ms of a trace's command on
    two cores, numpy's and the report's among them). Returns where that does not apply (a
    thread still running, an output that cannot be flushed): the caller exits as usual."""
    if _ran is None or not _ran.ends_at_once:
        return
    if any(
        t.is_alive() and not t.daemon
        for t in threading.enumerate()
        if t is not threading.main_thread()
    ):
        return
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed pipe: the usual exit says so, as Python does
        return
    os._exit(code)


def _main(argv: Sequence[str] | None) -> int:
    global _ran
    argv = sys.argv[1:] if argv is None else list(argv)
    typed = None if "COMMANDS" in globals() else _typed(argv)
    args = build_parser(None if typed is None else (typed,)).parse_args(argv)
    command = typed or next(c for c in _commands() if c.name == args.command)
    _ran = command
    stage_times.mark("arguments parsed")
    try:
        install_if_asked(args)
        # Its process starts on the first OpenCL request; at the end it is stopped and not
        # waited for (Executor.leave), the command exiting next.
        made = executor_for(args, local=Executor)
        with made as executor:
            try:
                code = command.run(args, executor)
                stage_times.mark("command done")
                return code
            finally:
                leave = getattr(made, "leave", None)  # a stand-in may have none
                if leave is not None:
                    leave()
    except (UsageError, CatalogError, NoDeviceError, ValueError) as exc:
        print(f"error: {shown(str(exc), 600)}", file=sys.stderr)
        return USAGE_ERROR
    except BrokenPipeError:  # e.g. `python -m explorer variants | head`
        sys.stderr.close()
        return 0
    except ExecutorError as exc:
        need = _install_need(exc)
        if need is not None:
            print(f"error: {_install_advice(need, argv, args)}", file=sys.stderr)
            return USAGE_ERROR
        print(f"error: {shown(str(exc), 600)}", file=sys.stderr)
        return EXIT_CODES.get("crashed", 4) if exc.kind in ("crash", "timeout") else USAGE_ERROR
    except OSError as exc:  # the terminal or a file the command writes
        print(f"error: {exc.strerror or type(exc).__name__}", file=sys.stderr)
        return USAGE_ERROR


def _install_need(exc: ExecutorError) -> HostNeedsInstall | None:
    """``exc`` where it says the host lacks this version of the explorer: only a connection
    to another machine raises that, and its module (remote.install) is imported by then, so
    a command on this machine never imports it."""
    install = sys.modules.get("explorer.engine.remote.install")
    if install is not None and isinstance(exc, install.HostNeedsInstall):
        return cast("HostNeedsInstall", exc)
    return None


def _install_advice(need: HostNeedsInstall, argv: Sequence[str], args: argparse.Namespace) -> str:
    """What a host without this version of the explorer needs: the command to run."""
    from explorer import __version__
    from explorer.engine.remote.install import by_hand

    if getattr(args, "install", False):
        return f"{need.found}, even after installing {__version__} there"
    try:
        need.host.reach()
    except ValueError as exc:
        return f"{need.found}; " + by_hand(need.host, str(exc))
    return (
        f"{need.found}. To install opencl-kernel-explorer {__version__} there (a virtual "
        f"environment in ~/.cache/opencl-kernel-explorer on {need.host.label}, whose own pip "
        "installs its dependencies), run:\n"
        f"  python -m explorer {shlex.join(with_install(argv))}"
    )


__all__ = ["COMMANDS", "build_parser", "end_at_once", "main"]
