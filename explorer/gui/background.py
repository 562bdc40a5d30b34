"""The one way the window runs work off the GUI thread: a :class:`Lane`.

A lane runs the work given to it in order, on a thread of its own, while the GUI thread keeps
drawing and answering; what the work returns goes back to the GUI thread, to the function
named with it (``then``), or to a caller that waits for it in a local event loop
(:meth:`Lane.call`, for a file a person opened: its code stays in order). Its thread starts
when work comes and ends when none is left, so an idle lane holds no thread; :meth:`Lane.stop`
drops the work not yet started, waits for the one in flight, and delivers nothing more. The
window's OpenCL work (the executor's requests: :mod:`explorer.gui.worker`), a host being
connected to or installed on, the search for a local size that fits, and reading a file all
go through lanes; the window stops its lanes when it closes, and the application every lane
left (:func:`stop_all`) as it ends.
"""

from __future__ import annotations

import collections
import contextlib
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from PySide6.QtCore import QEventLoop, QObject, QTimer, Signal

T = TypeVar("T")
_POLL_MS = 20
_QUICK_S = 0.05  # most files are read at once: no event loop for them

_lanes: set[Lane] = set()  # every lane whose thread may be running
_lanes_lock = threading.Lock()


class _Mail(QObject):
    """Carries a function from a lane's thread to the GUI thread, where it was made: a signal
    emitted on another thread reaches its slot through the GUI thread's event loop."""

    arrived = Signal(object)

    def __init__(self) -> None:
        super().__init__()
        self.arrived.connect(self._open)

    def _open(self, letter: Callable[[], object]) -> None:
        letter()


class Lane:
    """Work run in order on a thread named ``name``, off the GUI thread. Made, given work
    and stopped on the GUI thread; once ``owner`` (the widget the work is for) is deleted,
    nothing more is delivered to it."""

    def __init__(self, name: str, owner: QObject | None = None) -> None:
        self.name = name
        self._mail = _Mail()
        self._lock = threading.Lock()
        self._work: collections.deque[Callable[[], None]] = collections.deque()
        self._thread: threading.Thread | None = None
        self._running = False  # a thread is serving the lane (or about to start)
        self._stopped = False
        if owner is not None:
            owner.destroyed.connect(lambda *_: self.stop(0))

    @property
    def busy(self) -> bool:
        """Whether work is waiting or in flight."""
        return self._running

    def submit(self, work: Callable[[], T], then: Callable[[T], object] | None = None) -> None:
        """Run ``work()`` after the work given before it; ``then(what it returned)`` on the
        GUI thread. An exception it raises is raised on the GUI thread, ``then`` not called.
        Nothing runs once the lane is stopped."""

        def job() -> None:
            try:
                value = work()
            except Exception as exc:  # raised where the work was given, not on this thread
                self._deliver(_raiser(exc))
                return
            if then is not None:
                self._deliver(lambda: then(value))

        with self._lock:
            if self._stopped:
                return
            self._work.append(job)
            if self._running:
                return
            self._running = True
            with _lanes_lock:
                _lanes.add(self)
            self._thread = threading.Thread(target=self._serve, name=self.name, daemon=True)
            self._thread.start()

    def post(self, then: Callable[..., object], *values: Any) -> None:
        """From the work: ``then(*values)`` on the GUI thread (a step of the work, say)."""
        self._deliver(lambda: then(*values))

    def call(self, work: Callable[[], T]) -> T:
        """``work()`` on the lane, the window painting and answering meanwhile; what it
        returns is returned here, what it raises is raised here."""
        outcome: dict[str, Any] = {}
        done = threading.Event()

        def run() -> None:
            try:
                outcome["value"] = work()
            except BaseException as exc:  # handed to the caller, which decides
                outcome["error"] = exc
            finally:
                done.set()

        self.submit(run)
        if not done.wait(_QUICK_S):
            loop = QEventLoop()
            timer = QTimer()
            timer.timeout.connect(lambda: loop.quit() if done.is_set() else None)
            timer.start(_POLL_MS)
            loop.exec()
            timer.stop()
        done.wait()
        error = outcome.get("error")
        if isinstance(error, BaseException):
            raise error
        value: T = outcome["value"]
        return value

    def stop(self, wait_s: float = 2.0) -> bool:
        """Drop the work not yet started, wait up to ``wait_s`` for the one in flight, and
        deliver nothing more; later work is refused. Whether the thread has ended."""
        with self._lock:
            self._stopped = True
            self._work.clear()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(wait_s)
        return thread is None or not thread.is_alive()

    def _serve(self) -> None:
        while True:
            with self._lock:
                if not self._work:
                    self._running = False
                    with _lanes_lock:
                        _lanes.discard(self)
                    return
                job = self._work.popleft()
            job()

    def _deliver(self, letter: Callable[[], object]) -> None:
        def opened() -> None:
            if not self._stopped:
                letter()

        with contextlib.suppress(RuntimeError):  # the application is being torn down
            self._mail.arrived.emit(opened)


def _raiser(exc: Exception) -> Callable[[], None]:
    def again() -> None:
        raise exc

    return again


def stop_all(wait_s: float = 2.0) -> list[str]:
    """Stop every lane whose thread may still run (the application is ending); the names of
    those whose thread did not end within ``wait_s`` each."""
    with _lanes_lock:
        lanes = list(_lanes)
    return [lane.name for lane in lanes if not lane.stop(wait_s)]


def off_gui_thread(work: Callable[[], T], name: str = "file-reader") -> T:
    """``work()`` on a lane of its own (:meth:`Lane.call`): a file read and parsed while the
    window keeps painting. Its exception, if any, is raised here, in the caller."""
    lane = Lane(name)
    try:
        return lane.call(work)
    finally:
        lane.stop()
