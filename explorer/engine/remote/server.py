"""The executor's end of a remote connection: ``python -m explorer executor-serve`` reads
frames (:mod:`.wire`, data only) from its standard input and answers on its standard output,
running each request as a local executor process does (:func:`explorer.engine.executor.handle`).
A request it cannot read is answered with the reason; a stream that is not this protocol's
frames (another version's, say) ends it with exit code 2 and the reason on standard error.

The first exchange is ``("hello", facts)`` both ways: the window's protocol and package
versions and the environment its executor needs (a simulator's switches), then this end's
versions and machine name; the window checks them and says what to install on a mismatch.

Standard output carries frames only: it is moved to a private descriptor at start, and
descriptor 1 (where a kernel's ``printf`` and any library's prints go) becomes standard
error. The process ends as soon as its standard input closes (the window closed the
connection, or ``ssh`` was stopped), even while a kernel never returns: a thread reads the
input and ends the process at its end, so no executor outlives its connection.
"""

from __future__ import annotations

import os
import platform
import queue
import shutil
import signal
import sys
import tempfile
import threading
from typing import Any

from explorer import __version__
from explorer.engine.codec import CodecError, ProtocolError, VersionMismatch, check_request
from explorer.engine.executor import SINGLE_THREADED, handle, prepare_process
from explorer.engine.launch import build, picking
from explorer.engine.remote.files import kept_at
from explorer.engine.remote.wire import PROTOCOL, FrameReader, encode

_CHUNK = 1 << 20
# One frame at a time on the output: a build's notices may come from the thread that watches
# a launch while it compiles.
_WRITING = threading.Lock()


def serve() -> int:
    """Serve requests until standard input closes; never returns while it is open."""
    _single_threaded_blas()
    picking.serving_a_window_elsewhere = True
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the connection's end stops this process
    out = os.dup(1)
    os.dup2(2, 1)  # stray prints go to standard error, never into the frames
    sys.stdout = sys.stderr
    inbox: queue.Queue[tuple[int, Any]] = queue.Queue()
    threading.Thread(target=_read_input, args=(inbox,), name="stdin-reader", daemon=True).start()
    number = 0

    def tell(notice: str) -> None:
        """A build of the request in flight began or ended (codec.NOTICES): the window's
        clock for the kernel stops meanwhile and it says what is being built."""
        _write(out, number, (notice, ""))

    build.listen(tell)
    while True:
        number, message = inbox.get()
        try:
            if isinstance(message, ProtocolError):
                raise message
            kind, payload = check_request(message)
        except ProtocolError as exc:
            _write(out, number, ("error", f"the request could not be read: {exc}"))
            continue
        if kind == "hello":
            prepare_process(dict(payload.get("env") or {}))
            reply: Any = ("hello", facts())
        elif kind == "files":
            reply = _keep_files(payload)
        else:
            reply = handle(kind, payload)
        _write(out, number, reply)


def facts() -> dict[str, Any]:
    """What this end tells the window first."""
    return {
        "protocol": PROTOCOL,
        "version": __version__,
        "python": platform.python_version(),
        "machine": platform.node(),
    }


_FOLDER = os.path.join(tempfile.gettempdir(), f"opencl-explorer-files-{os.getpid()}")


def _keep_files(contents: dict[str, bytes]) -> tuple[str, Any]:
    """The window's files a request reads, kept here at their paths there under a folder of
    this process (removed when it ends), so a kernel's headers keep their places beside each
    other; the reply maps each to its copy."""
    where = {}
    try:
        for path, data in contents.items():
            copy = kept_at(_FOLDER, path)
            os.makedirs(os.path.dirname(copy), exist_ok=True)
            with open(copy, "wb") as f:
                f.write(data)
            where[path] = copy
    except OSError as exc:
        return ("error", f"the files could not be kept on {platform.node()}: {exc.strerror}")
    return ("ok", where)


def _single_threaded_blas() -> None:
    """As the local executor: a multi-threaded BLAS fights a CPU device's threads. Its
    thread count is read when numpy loads, which has happened by now, so the process starts
    itself again once with the switches set (same process id, same standard streams)."""
    if all(os.environ.get(k) == v for k, v in SINGLE_THREADED.items()):
        return
    os.environ.update(SINGLE_THREADED)
    sys.stdout.flush()
    os.execv(sys.executable, [sys.executable, "-m", "explorer", "executor-serve"])


def _read_input(inbox: queue.Queue[tuple[int, Any]]) -> None:
    """Requests from standard input into ``inbox`` (a frame whose message breaks the
    protocol, as an error to answer); the process ends with the input, or at a stream that
    is not this protocol's frames (exit code 2, the reason on standard error)."""
    reader = FrameReader(replies=False)
    code = 0
    try:
        while True:
            data = os.read(0, _CHUNK)
            if not data:
                break
            reader.feed(data)
            while reader.ready():
                inbox.put(_next_request(reader))
    except VersionMismatch as exc:
        print(
            f"executor-serve: the window's explorer {exc} cannot speak with this one "
            f"({__version__}, protocol {PROTOCOL}): install the same version on both machines",
            file=sys.stderr,
        )
        code = 2
    except ProtocolError as exc:
        print(f"executor-serve: {exc}", file=sys.stderr)
        code = 2
    except OSError as exc:
        print(f"executor-serve: {exc}", file=sys.stderr)
    shutil.rmtree(_FOLDER, ignore_errors=True)
    os._exit(code)


def _next_request(reader: FrameReader) -> tuple[int, Any]:
    """The next request's number and message, or the :class:`ProtocolError` that says why
    its message cannot be read (the loop answers with it)."""
    number, body = reader.pop_frame()
    try:
        return number, reader.decode(body)
    except ProtocolError as exc:
        return number, exc


def _write(fd: int, number: int, reply: Any) -> None:
    try:
        frame = encode(reply, number, reply=True)
    except CodecError as exc:  # a value that cannot be sent is reported, never lost
        frame = encode(("error", f"the reply could not be sent ({exc})"), number, reply=True)
    view = memoryview(frame)
    with _WRITING:
        try:
            while view:
                view = view[os.write(fd, view) :]
        except OSError:  # the window is gone
            os._exit(0)
