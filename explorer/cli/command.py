"""What a sub-command of ``python -m explorer`` is, and the little every command shares.

A command is one module of this package holding one :class:`Command`: its name, its one-line
help, how it adds its options and how it runs. ``explorer.cli`` lists those modules; nothing
else needs to know a command exists.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from explorer.engine.executor import Executor
from explorer.engine.launch.devices import NO_PLATFORM_HELP, NoDeviceError
from explorer.engine.records import DeviceInfo, check_timeout
from explorer.engine.remote.hosts import Host
from explorer.paths import shown
from explorer.selection import UsageError

USAGE_ERROR = 2
INTERRUPTED = 130  # Ctrl+C: what a shell reports for a command ended by SIGINT


@dataclass(frozen=True)
class Command:
    """One sub-command. ``run`` gets the parsed options and an executor that starts its
    process only when first asked for OpenCL work, so commands without OpenCL cost nothing;
    it returns the exit code. ``order`` places it in ``--help``. ``ends_at_once``: a command
    whose output is standard output and error alone (no file of its own left to close) ends
    its process without the interpreter's teardown (see :func:`explorer.cli.end_at_once`)."""

    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace, Executor], int]
    order: int
    ends_at_once: bool = False


def add_host_arguments(parser: argparse.ArgumentParser) -> None:
    """``--host`` and ``--executor-command``, on every command: its OpenCL work runs on
    another machine, whose devices it lists and picks."""
    group = parser.add_argument_group("another machine's devices")
    group.add_argument(
        "--host",
        metavar="USER@SERVER",
        help="run the OpenCL work on that machine, through ssh (this version of the explorer "
        "must be installed there: see --install); its devices are named 'server: …'",
    )
    group.add_argument(
        "--executor-command",
        metavar="CMD",
        help="the command that starts the executor there instead of ssh, e.g. "
        '"ssh -p 2222 me@gpu ~/venv/bin/python -m explorer executor-serve"',
    )
    group.add_argument(
        "--install",
        action="store_true",
        help="where the host has no explorer or another version: install this one there first, "
        "through the same command (a virtual environment in the host's "
        "~/.cache/opencl-kernel-explorer; the host's pip installs the dependencies)",
    )


def host_of(args: argparse.Namespace) -> Host | None:
    """The host ``--host`` and ``--executor-command`` name, or None for this machine."""
    target = getattr(args, "host", None) or ""
    command = getattr(args, "executor_command", None) or ""
    if not target and not command:
        return None
    try:
        return Host.parse(target, command)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def install_if_asked(args: argparse.Namespace) -> None:
    """``--install``: connect to the host first and, where it lacks this version of the
    explorer, install it there, saying the far end's progress on standard error. A command
    given whole then starts the installed one (``args`` is changed, and the new command
    said)."""
    if not getattr(args, "install", False):
        return
    host = host_of(args)
    if host is None:
        raise UsageError(
            "--install installs the explorer on a host: give --host or --executor-command"
        )
    from explorer import __version__
    from explorer.engine.remote.client import CommandExecutor
    from explorer.engine.remote.install import HostNeedsInstall, Installation

    probe = CommandExecutor(host, progress=_say_progress)
    try:
        probe.connect()
        return
    except HostNeedsInstall as need:
        print(f"{need.found}: installing {__version__} there", file=sys.stderr, flush=True)
    finally:
        probe.close()
    installed = Installation(host).run(
        lambda line: print(f"{host.label}: {line}", file=sys.stderr, flush=True)
    )
    print(f"{host.label}: the explorer {__version__} is installed", file=sys.stderr, flush=True)
    if installed != host:
        args.executor_command = installed.text
        print(
            f"from now on give --executor-command {shlex.quote(installed.text)}",
            file=sys.stderr,
            flush=True,
        )


def with_install(argv: Sequence[str]) -> list[str]:
    """``argv`` with ``--install`` after its ``--host`` or ``--executor-command`` option
    (before a ``--`` that ends the explorer's own options)."""
    words = list(argv)
    for at, word in enumerate(words):
        if word == "--":
            break
        if word in ("--host", "--executor-command"):
            return [*words[: at + 2], "--install", *words[at + 2 :]]
        if word.startswith(("--host=", "--executor-command=")):
            return [*words[: at + 1], "--install", *words[at + 1 :]]
    return [*words, "--install"]


def executor_for(
    args: argparse.Namespace, env: dict[str, str] | None = None, local: Any = Executor
) -> Executor:
    """This machine's executor (made by ``local``), or the one ``--host`` and
    ``--executor-command`` name, which tells how a long transfer goes on standard error."""
    host = host_of(args)
    executor: Executor
    if host is None:
        executor = local(env=env) if env else local()
    else:
        from explorer.engine.remote.client import CommandExecutor

        executor = CommandExecutor(host, env=env, progress=_say_progress)
    executor.on_build = _build_teller()
    return executor


def host_options(args: argparse.Namespace) -> list[str]:
    """The ``--host``/``--executor-command`` options ``args`` were given, for a command this
    one starts."""
    options = []
    for name in ("host", "executor_command"):
        value = getattr(args, name, None)
        if value:
            options += [f"--{name.replace('_', '-')}", value]
    return options


def _build_teller() -> Callable[[str], None]:
    """What says on standard error that a build has taken a second ("building matmul/fast
    (M=100, N=36, K=257) (first time; cached after) …"): once per thing built, never on
    standard output (which ``--json`` keeps for its record)."""
    told: set[str] = set()

    def tell(text: str) -> None:
        if text and text not in told:
            told.add(text)
            print(f"{text} …", file=sys.stderr, flush=True)

    return tell


def _say_progress(text: str, finished: bool) -> None:
    """A transfer's progress on standard error: one line rewritten on a terminal."""
    if sys.stderr.isatty():
        print(f"\r{text}", end="\n" if finished else "", file=sys.stderr, flush=True)
    elif finished:
        print(text, file=sys.stderr)


def available_devices(executor: Executor) -> list[DeviceInfo]:
    """Every OpenCL device the executor sees; none is an environment error that says how
    to install one."""
    devices = executor.devices()
    if not devices:
        raise NoDeviceError(NO_PLATFORM_HELP)
    return devices


def check_output_file(path: str, option: str, force: bool = False) -> None:
    """Refuse an output path before any work: a file or a symbolic link already there
    (unless ``force``), a folder, a device or another special file, a folder that does not
    exist or cannot be written (:func:`explorer.file_writes.output_problem`)."""
    from explorer.file_writes import output_problem

    problem = output_problem(path, force)
    if problem is not None:
        raise UsageError(f"{option} {shown(path)}: {problem}")


def add_force(parser: argparse.ArgumentParser) -> None:
    """``--force``: a command's output may replace a file already there."""
    parser.add_argument(
        "--force",
        action="store_true",
        help="replace a file already at the output path (without it the command refuses; "
        "a symbolic link there is replaced itself, never written through)",
    )


def timeout_seconds(text: str) -> float:
    """``--timeout``: a finite, positive number of seconds (argparse turns the error into a
    usage message)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{shown(text)!r} is not a number of seconds") from None
    try:
        return check_timeout(value, "--timeout")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
