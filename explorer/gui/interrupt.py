"""Ctrl+C in the commands that work through a Qt event loop (``animate``, ``--screenshot``).

Python runs a signal handler only between bytecodes, and a KeyboardInterrupt raised inside a
Qt slot is printed as a traceback and swallowed while the process runs on. Here the handler
only notes the interrupt and stops every event loop; the code that waited then raises
KeyboardInterrupt itself, in plain Python, where the command turns it into exit code 130.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import Any

from PySide6.QtCore import QCoreApplication, QTimer

INTERRUPTED = 130  # what a shell reports for a command ended by SIGINT

_noted = threading.Event()
_direct = threading.local()


def _handler(signum: int, frame: Any) -> None:
    _noted.set()
    if getattr(_direct, "on", False):
        raise KeyboardInterrupt
    app = QCoreApplication.instance()
    if app is not None:
        app.exit(INTERRUPTED)  # every running event loop returns


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """Ctrl+C handled as this module says while the block runs; a timer wakes the
    interpreter every 100 ms so the handler runs even while Qt waits."""
    _noted.clear()
    try:
        previous = signal.signal(signal.SIGINT, _handler)
    except ValueError:  # not the main thread: leave the signal as it is
        yield
        return
    waker = QTimer()
    waker.timeout.connect(lambda: None)
    waker.start(100)
    try:
        yield
    finally:
        waker.stop()
        signal.signal(signal.SIGINT, previous)


def check() -> None:
    """Raise KeyboardInterrupt where Ctrl+C was pressed (call it outside Qt slots)."""
    if _noted.is_set():
        raise KeyboardInterrupt


@contextlib.contextmanager
def directly() -> Iterator[None]:
    """In a block with no Qt event loop (writing a file), Ctrl+C raises at once."""
    check()
    _direct.on = True
    try:
        yield
    finally:
        _direct.on = False
