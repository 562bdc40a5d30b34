"""Running the command line in this process, fast: one shared executor for every call."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

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

    def __init__(self, executor: object) -> None:
        self._executor = executor

    def __call__(self) -> SharedExecutor:
        return self

    def __enter__(self) -> object:
        return self._executor

    def __exit__(self, *exc: object) -> None:
        return None


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
