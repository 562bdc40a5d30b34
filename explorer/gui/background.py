"""Work that must not freeze the window, done on a Python thread while the GUI thread keeps
drawing: reading and parsing a file a person opened (a ``.sim`` file's arguments, a kernel's
header). The caller waits in a local event loop, so its code stays in order."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

from PySide6.QtCore import QEventLoop, QTimer

T = TypeVar("T")
_POLL_MS = 20


def off_gui_thread(work: Callable[[], T], name: str = "file-reader") -> T:
    """``work()`` on a thread of its own; the window keeps painting and answering meanwhile.
    Its exception, if any, is raised here, in the caller."""
    outcome: dict[str, object] = {}

    def run() -> None:
        try:
            outcome["value"] = work()
        except BaseException as exc:  # handed to the caller, which decides
            outcome["error"] = exc

    thread = threading.Thread(target=run, name=name, daemon=True)
    thread.start()
    thread.join(0.05)  # most files are read at once: no event loop for them
    if thread.is_alive():
        loop = QEventLoop()
        timer = QTimer()
        timer.timeout.connect(lambda: None if thread.is_alive() else loop.quit())
        timer.start(_POLL_MS)
        loop.exec()
        timer.stop()
    thread.join()
    error = outcome.get("error")
    if isinstance(error, BaseException):
        raise error
    return outcome["value"]  # type: ignore[return-value]
