"""Running the command line in this process, fast: one shared executor for every call."""

from __future__ import annotations

import contextlib
import io
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

KERNELS = Path(__file__).parent / "kernels"


@dataclass
class Outcome:
    code: int
    out: str
    err: str


class SharedExecutor:
    """Stands in for ``Executor()`` in ``explorer.cli.main``: the session's process, which
    ``close`` leaves running (a crash or timeout still restarts it)."""

    def __init__(self, executor: Any) -> None:
        self._executor = executor
        self.on_build = None  # what the command says of a long build, handed to the process

    def __call__(self) -> SharedExecutor:
        return self

    def __enter__(self) -> object:
        self._executor.on_build = self.on_build
        return self._executor

    def __exit__(self, *exc: object) -> None:
        self._executor.on_build = None


@contextlib.contextmanager
def shared_executor(monkeypatch: pytest.MonkeyPatch, executor: object) -> Iterator[None]:
    import explorer.cli

    monkeypatch.setattr(explorer.cli, "Executor", SharedExecutor(executor))
    yield


def cli(*args: str) -> Outcome:
    """``python -m explorer ARGS`` in this process: the exit code (argparse's too) and what
    it printed. An exception escaping ``main`` is a traceback a person would see: it
    propagates and fails the test."""
    from explorer.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 2
    return Outcome(code, out.getvalue(), err.getvalue())


def _stat_fields(path: str) -> list[str]:
    """The fields of a /proc ``stat`` file after the command name (the state first)."""
    with open(path, encoding="ascii", errors="replace") as stat:
        return stat.read().rsplit(")", 1)[1].split()


def in_kernel(pid: int, cpu_s: float = 0.5) -> bool:
    """Whether the process ``pid`` runs a kernel that never returns: a thread other than its
    main one (the device's worker, not an import or a build) has used ``cpu_s`` seconds of
    CPU and keeps spinning."""
    ticks = cpu_s * os.sysconf("SC_CLK_TCK")
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            fields = _stat_fields(f"/proc/{pid}/task/{tid}/stat")
            if tid != str(pid) and int(fields[11]) + int(fields[12]) >= ticks:
                return True
    except (OSError, IndexError, ValueError):
        pass  # a process or thread that ended meanwhile
    return False


def group_in_kernel(group: int) -> bool:
    """Whether a process of the process group ``group`` runs a kernel (:func:`in_kernel`)."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if int(_stat_fields(f"/proc/{pid}/stat")[2]) != group:
                continue
        except (OSError, IndexError, ValueError):
            continue
        if in_kernel(int(pid)):
            return True
    return False


def wait_until_each(checks: dict[str, Callable[[], bool]], timeout_s: float = 120) -> None:
    """Until each of ``checks`` holds (each named), such as each command inside its kernel:
    not a fixed wait, which a loaded machine may outlast and which keeps kernels spinning."""
    deadline = time.monotonic() + timeout_s
    while checks and time.monotonic() < deadline:
        checks = {name: holds for name, holds in checks.items() if not holds()}
        if checks:
            time.sleep(0.1)
    assert not checks, f"{sorted(checks)} never held"
