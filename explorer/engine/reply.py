"""How a reply crosses from the executor's process to its caller: through the pipe, or, when it
holds large arrays, through one file in shared memory (``/dev/shm``) that the caller maps
instead of copying; only the rest is pickled down the pipe. Both sides import this module."""

from __future__ import annotations

import contextlib
import glob
import mmap
import os
import pickle
import tempfile
from typing import Any

# Arrays at least this large leave a reply through shared memory instead of the pipe.
SHARED_MIN_BYTES = 1 << 20
SHARED_PREFIX = "opencl-explorer-reply-"


def shared_dir() -> str:
    return "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()


def pack(reply: Any) -> Any:
    """What goes down the pipe for ``reply``: the reply itself, or, when it holds large
    arrays, ``("shared", pickle, path, spans)``: the arrays (pickle protocol 5's out-of-band
    buffers) lie one after another in the file ``path``, at ``spans`` (offset, bytes).
    Pickling a 70 MB trace, pushing it through the pipe and unpickling it copied it three
    times; the file is written once and mapped by the caller."""
    large: list[pickle.PickleBuffer] = []

    def in_band(buffer: pickle.PickleBuffer) -> bool:
        if buffer.raw().nbytes < SHARED_MIN_BYTES:
            return True
        large.append(buffer)
        return False

    try:
        data = pickle.dumps(reply, protocol=5, buffer_callback=in_band)
    except (pickle.PicklingError, TypeError, ValueError, BufferError):
        return reply  # let the pipe report what cannot be sent
    if not large:
        return reply
    spans: list[tuple[int, int]] = []
    end = 0
    for buffer in large:
        size = buffer.raw().nbytes
        spans.append((end, size))
        end += (size + 63) // 64 * 64
    try:
        fd, path = tempfile.mkstemp(prefix=f"{SHARED_PREFIX}{os.getpid()}-", dir=shared_dir())
        try:
            os.ftruncate(fd, end)
            with mmap.mmap(fd, end) as mapped:
                for buffer, (at, size) in zip(large, spans, strict=True):
                    mapped[at : at + size] = buffer.raw()
        finally:
            os.close(fd)
    except OSError:
        return reply  # no room in shared memory: through the pipe, as before
    return ("shared", data, path, spans)


def unpack(message: Any) -> Any:
    """The reply :func:`pack` sent. The arrays of a shared one are views of a private
    (copy-on-write) mapping of its file, which is removed at once: the memory goes when the
    last array does."""
    if not (isinstance(message, tuple) and len(message) == 4 and message[0] == "shared"):
        return message
    _, data, path, spans = message
    fd = os.open(path, os.O_RDONLY)
    try:
        os.unlink(path)
        size = os.fstat(fd).st_size
        mapped = mmap.mmap(fd, size, access=mmap.ACCESS_COPY)
    finally:
        os.close(fd)
    view = memoryview(mapped)
    return pickle.loads(data, buffers=[view[at : at + n] for at, n in spans])


def remove_shared(pid: int) -> None:
    """Reply files a process left behind (it was stopped before its reply was read)."""
    for path in glob.glob(os.path.join(shared_dir(), f"{SHARED_PREFIX}{pid}-*")):
        with contextlib.suppress(OSError):
            os.unlink(path)
