"""Starting the executor's process as the very first thing a command does.

``python -m explorer trace …`` used to import the whole engine (a quarter of a second on two
cores) and only then start its executor, which imported Python's numeric stack and described
the devices again (another quarter): one after the other. Started first, the executor does its
part while the command imports its own, and it describes the devices before it is asked.

This module and the process's loop (serve.py) import nothing but the standard library at
first, so starting early costs the command nothing it would not pay anyway.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import threading
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


def spawn(env: dict[str, str], warm: tuple[str, ...] = ()) -> tuple[Any, Connection]:
    """Start an executor process with ``env`` added to its environment: the process and the
    caller's end of its pipe. ``warm``: modules it imports, after describing the devices,
    before it reads its first request."""
    context = mp.get_context("spawn")
    parent, child = context.Pipe()
    process = context.Process(
        target=serve_requests,
        args=(child, os.getpid(), threading.current_thread() is threading.main_thread(), warm),
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
        _started = spawn({}, _WARM[argv[0]])


def take() -> tuple[Any, Connection] | None:
    """The process :func:`start_for` started, once; None when there is none (or it died)."""
    global _started
    started, _started = _started, None
    if started is not None and not started[0].is_alive():
        started[1].close()
        return None
    return started
