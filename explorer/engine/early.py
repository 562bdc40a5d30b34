"""Starting the executor's process as the very first thing a command does.

``python -m explorer trace …`` used to import the whole engine (a quarter of a second on two
cores) and only then start its executor, which imported Python's numeric stack and described
the devices again (another quarter): one after the other. Started first, the executor does its
part while the command imports its own, and it describes the devices before it is asked.

This module and the process's loop (serve.py) import nothing but the standard library at
first, so starting early costs the command nothing it would not pay anyway.

How it starts. On Linux, outside a bundle, the command's first executor is a fork of the
command itself, made before the command has imported anything but this module (no thread,
no numpy yet): no second interpreter starts, re-reads its modules and unpickles what it was
given, and no resource tracker beside it (multiprocessing's "spawn" starts both), which
took 0.1–0.3 s of a process's first trace. Every other executor (a restarted one, the
window's, one with its own environment, any on another system) is started by
multiprocessing's "spawn", which is safe in a process that has threads and libraries loaded.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import signal
import socket
import sys
import threading
import time
from multiprocessing.connection import Connection
from typing import Any

from explorer.engine.serve import serve_requests

# A CPU OpenCL device keeps its worker threads hot; a multi-threaded BLAS beside them in the
# same process fights them for the cores and runs many times slower.
SINGLE_THREADED = dict.fromkeys(("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"), "1")

# The commands whose first request goes to the executor (a device's run or trace), and the
# modules their executor will need, imported before the request comes.
_WARM: dict[str, tuple[str, ...]] = {
    "run": ("explorer.engine.launch.run",),
    "trace": ("explorer.engine.record.trace_launch", "explorer.trace.analysis"),
    "check": ("explorer.engine.launch.run",),
}

_started: tuple[Any, Connection] | None = None


def spawn(
    env: dict[str, str], warm: tuple[str, ...] = (), ahead: str | None = None
) -> tuple[Any, Connection]:
    """Start an executor process with ``env`` added to its environment: the process and the
    caller's end of its pipe. ``warm``: modules it imports, after describing the devices,
    before it reads its first request; ``ahead``: the device whose context it makes
    meanwhile (serve.py)."""
    context = mp.get_context("spawn")
    parent, child = context.Pipe()
    process = context.Process(
        target=serve_requests,
        args=(
            child,
            os.getpid(),
            threading.current_thread() is threading.main_thread(),
            warm,
            ahead,
        ),
        name="opencl-executor",
        daemon=True,
    )
    extra = {**SINGLE_THREADED, **env}
    saved = {k: os.environ.get(k) for k in extra}
    os.environ.update(extra)
    try:
        process.start()
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    child.close()
    return process, parent


class ForkedProcess:
    """An executor process made by :func:`fork`, with what the executor asks of a process
    (multiprocessing's ``Process``'s ``pid``, ``is_alive``, ``kill``, ``join``,
    ``exitcode``, signals as negative codes)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.exitcode: int | None = None

    def _reap(self) -> bool:
        if self.exitcode is None:
            try:
                done, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:  # reaped elsewhere: gone, how is not known
                self.exitcode = -signal.SIGKILL
                return True
            if done:
                self.exitcode = os.waitstatus_to_exitcode(status)
        return self.exitcode is not None

    def is_alive(self) -> bool:
        return not self._reap()

    def kill(self) -> None:
        if not self._reap():
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)

    def join(self, timeout: float | None = None) -> None:
        deadline = None if timeout is None else time.monotonic() + timeout
        pause = 0.001
        while not self._reap():
            if deadline is not None and time.monotonic() >= deadline:
                return
            time.sleep(pause)
            pause = min(pause * 2, 0.05)


def fork(warm: tuple[str, ...] = (), ahead: str | None = None) -> tuple[ForkedProcess, Connection]:
    """An executor process forked from this one, which must have no thread but its main one
    and nothing loaded that a fork would break (numpy's thread pools, an OpenCL runtime):
    the very start of a command. ``warm`` and ``ahead`` as :func:`spawn`'s."""
    parent_end, child_end = socket.socketpair()
    sys.stdout.flush()
    sys.stderr.flush()
    parent_pid = os.getpid()
    pid = os.fork()
    if pid == 0:  # the executor: it never returns into the command's code
        code = 1
        try:
            parent_end.close()
            _detach_stdin()
            os.environ.update(SINGLE_THREADED)  # before numpy is imported, here
            serve_requests(Connection(child_end.detach()), parent_pid, True, warm, ahead)
            code = 0
        except BaseException:  # its traceback on stderr, then the exit code says it failed
            import traceback

            traceback.print_exc()
        finally:
            os._exit(code)
    child_end.close()
    return ForkedProcess(pid), Connection(parent_end.detach())


def _detach_stdin() -> None:
    """The terminal's input is the command's, never the executor's."""
    with contextlib.suppress(OSError):
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)


def _may_fork() -> bool:
    """Whether the first executor may be a fork of the command: on Linux (elsewhere a fork
    without exec is unsafe or absent), outside a bundle (whose executable starts its
    processes itself), with no thread in the process but its own (none of a library's
    either) and neither numpy nor an OpenCL runtime loaded: the start of a command."""
    if not sys.platform.startswith("linux") or getattr(sys, "frozen", False):
        return False
    if any(name in sys.modules for name in ("numpy", "pyopencl")):
        return False
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


def start_for(argv: list[str]) -> None:
    """Start the executor now when ``argv`` names a command that will use one (the first
    :class:`~explorer.engine.executor.Executor` made without extra environment adopts it)."""
    global _started
    # Help, or the work on another machine (--host, --executor-command): no local executor;
    # argparse takes an option's abbreviation too (--ho, --exec=…).
    elsewhere = ("--help", "--host", "--executor-command")
    for arg in argv:
        name = arg.partition("=")[0]
        if arg == "-h" or (len(name) > 2 and any(e.startswith(name) for e in elsewhere)):
            return
    if _started is None and argv and argv[0] in _WARM:
        # The command's own numpy multiplies no matrices (its executor does): no thread pool
        # of BLAS beside the executor (on a 16-core host its threads spun for 2 CPU-seconds
        # at numpy's import). A setting the person made stays.
        if "numpy" not in sys.modules:
            for name, value in SINGLE_THREADED.items():
                os.environ.setdefault(name, value)
        warm = _WARM[argv[0]]
        # The device of a run or a trace is known now: its context is made ahead.
        ahead = _device_asked(argv) if argv[0] in ("run", "trace") else None
        _started = fork(warm, ahead) if _may_fork() else spawn({}, warm, ahead)


def _device_asked(argv: list[str]) -> str:
    """The ``--device`` of a command's arguments ("" where none is given: the default)."""
    for at, arg in enumerate(argv):
        if arg == "--":
            break
        if arg == "--device" and at + 1 < len(argv):
            return argv[at + 1]
        if arg.startswith("--device="):
            return arg.partition("=")[2]
    return ""


def take() -> tuple[Any, Connection] | None:
    """The process :func:`start_for` started, once; None when there is none (or it died)."""
    global _started
    started, _started = _started, None
    if started is not None and not started[0].is_alive():
        started[1].close()
        return None
    return started
