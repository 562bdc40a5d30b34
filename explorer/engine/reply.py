"""How a message crosses the local executor's pipe: data only (:mod:`explorer.engine.codec`),
as bytes (``send_bytes``/``recv_bytes``). A reply's large arrays do not go through the pipe:
they are written once into one file in shared memory (``/dev/shm``) that the caller maps
instead of copying. Both sides import this module.

A message, every number big-endian::

    head    "OKXL", protocol (2 bytes), flags (2: bit 0 set on a reply), the JSON text's size
            (8), the number of blobs (4), the size of the shared file's name (4)
    table   per blob: where it is (1: 0 in this message, 1 in the shared file), its offset
            there and its size (8 + 8)
    then    the shared file's name, the JSON text, the blobs kept in the message

The caller checks every span against the message's size or the file's before using it, and
takes a shared file only from the folder and with the name its own executor's process gives
such files.
"""

from __future__ import annotations

import contextlib
import glob
import mmap
import os
import stat
import struct
import tempfile
from typing import Any

from explorer.engine.codec import (
    MAX_BLOBS,
    MAX_TEXT_BYTES,
    PROTOCOL,
    CodecError,
    ProtocolError,
    VersionMismatch,
    decode_message,
    encode_message,
    size_text,
)

# Arrays at least this large leave a reply through shared memory instead of the pipe.
SHARED_MIN_BYTES = 1 << 20
SHARED_PREFIX = "opencl-explorer-reply-"
MAGIC = b"OKXL"
_HEAD = struct.Struct(">4sHHQII")
_SPAN = struct.Struct(">BQQ")
REPLY = 1
IN_MESSAGE, IN_FILE = 0, 1
# What one message through the pipe may be (its large arrays are in the shared file).
MAX_MESSAGE_BYTES = 1 << 30
_ALIGN = 64


def shared_dir() -> str:
    return "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()


def pack_request(message: Any) -> bytes:
    """A request as the bytes the pipe carries (its arrays in the message itself)."""
    text, blobs = encode_message(message)
    return _assemble(text, blobs, [(IN_MESSAGE, blob) for blob in blobs], "", reply=False)


def pack(reply: Any) -> bytes:
    """A reply as the bytes the pipe carries: arrays of :data:`SHARED_MIN_BYTES` or more lie
    one after another in a file in shared memory (named in the message), the rest in the
    message. Pickling a 70 MB trace, pushing it through the pipe and unpickling it copied it
    three times; the file is written once and mapped by the caller. A reply that is not data
    becomes an error naming why."""
    try:
        text, blobs = encode_message(reply)
    except CodecError as exc:
        text, blobs = encode_message(("error", f"the reply could not be sent ({exc})"))
    large = [b for b in blobs if b.nbytes >= SHARED_MIN_BYTES]
    path = ""
    placed: list[tuple[int, Any]] = [(IN_MESSAGE, blob) for blob in blobs]
    if large:
        try:
            path, offsets = _write_shared(large)
        except OSError:  # no room in shared memory: through the pipe
            large = []
        else:
            where = {id(blob): at for blob, at in zip(large, offsets, strict=True)}
            placed = [
                (IN_FILE, where[id(blob)]) if id(blob) in where else (IN_MESSAGE, blob)
                for blob in blobs
            ]
    return _assemble(text, blobs, placed, path, reply=True)


def _write_shared(blobs: list[memoryview]) -> tuple[str, list[int]]:
    offsets = []
    end = 0
    for blob in blobs:
        offsets.append(end)
        end += -(-blob.nbytes // _ALIGN) * _ALIGN
    fd, path = tempfile.mkstemp(prefix=f"{SHARED_PREFIX}{os.getpid()}-", dir=shared_dir())
    try:
        os.ftruncate(fd, end)
        with mmap.mmap(fd, end) as mapped:
            for blob, at in zip(blobs, offsets, strict=True):
                mapped[at : at + blob.nbytes] = blob
    except OSError:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise
    os.close(fd)
    return path, offsets


def _assemble(
    text: bytes, blobs: list[memoryview], placed: list[tuple[int, Any]], path: str, reply: bool
) -> bytes:
    name = path.encode("utf-8")
    table = []
    inline: list[Any] = []
    at = 0
    for blob, (where, value) in zip(blobs, placed, strict=True):
        if where == IN_FILE:
            table.append(_SPAN.pack(IN_FILE, value, blob.nbytes))
        else:
            table.append(_SPAN.pack(IN_MESSAGE, at, blob.nbytes))
            inline.append(blob)
            at += blob.nbytes
    head = _HEAD.pack(MAGIC, PROTOCOL, REPLY if reply else 0, len(text), len(blobs), len(name))
    return b"".join([head, *table, name, text, *inline])


def read_request(data: bytes | bytearray | memoryview) -> Any:
    """The request the caller sent (its arrays in the message)."""
    return _read(memoryview(data), reply=False, pid=None)


def unpack(data: bytes | bytearray | memoryview, pid: int) -> Any:
    """The reply :func:`pack` sent in the executor's process ``pid``. The arrays of a shared
    file are views of a private (copy-on-write) mapping of it, which is removed at once: the
    memory goes when the last array does. :class:`ProtocolError` naming what is wrong."""
    return _read(memoryview(data), reply=True, pid=pid)


def _read(view: memoryview, reply: bool, pid: int | None) -> Any:
    view = view.cast("B")
    if len(view) < _HEAD.size:
        raise ProtocolError(f"a message of {len(view)} bytes is too short to be one")
    magic, protocol, flags, text_size, count, name_size = _HEAD.unpack_from(view)
    if magic != MAGIC:
        shown = bytes(view[:40]).decode("utf-8", "replace")
        raise ProtocolError(f"not the executor's protocol: {shown!r}")
    if protocol != PROTOCOL:
        raise VersionMismatch(f"it speaks protocol {protocol}, not {PROTOCOL}", protocol)
    if bool(flags & REPLY) != reply:
        raise ProtocolError("a request came where a reply was expected, or the other way round")
    if text_size > MAX_TEXT_BYTES:
        raise ProtocolError(
            f"a message of {size_text(text_size)}; the limit is {size_text(MAX_TEXT_BYTES)}"
        )
    if count > MAX_BLOBS:
        raise ProtocolError(f"a message declares {count} data blocks; the limit is {MAX_BLOBS}")
    at = _HEAD.size
    spans = (
        [_SPAN.unpack_from(view, at + i * _SPAN.size) for i in range(count)]
        if (at + count * _SPAN.size <= len(view))
        else None
    )
    if spans is None:
        raise ProtocolError(f"a message declares {count} data blocks, more than it holds")
    at += count * _SPAN.size
    inline_at = at + name_size + text_size
    if inline_at > len(view):
        raise ProtocolError(
            f"a message declares {size_text(inline_at)} before its data, but is "
            f"{size_text(len(view))}"
        )
    name = bytes(view[at : at + name_size]).decode("utf-8", "replace")
    text = view[at + name_size : inline_at]
    inline = view[inline_at:]
    shared = _map_shared(name, pid) if name else None
    blobs = []
    for where, offset, size in spans:
        source = inline if where == IN_MESSAGE else shared
        if source is None or where not in (IN_MESSAGE, IN_FILE):
            raise ProtocolError("a data block lies in a shared file the message does not name")
        if offset + size > len(source):
            raise ProtocolError(
                f"a data block of {size_text(size)} at {offset} lies past the end of its "
                f"{'message' if where == IN_MESSAGE else 'shared file'} ({size_text(len(source))})"
            )
        blobs.append(
            source[offset : offset + size]
            if where == IN_FILE
            else bytearray(source[offset : offset + size])
        )
    return decode_message(text, blobs)


def _map_shared(path: str, pid: int | None) -> memoryview:
    """A private mapping of the reply file ``path``, which must be one the executor's process
    ``pid`` wrote in :func:`shared_dir`; the file is removed at once."""
    folder, name = os.path.split(path)
    if (
        pid is None
        or os.path.realpath(folder) != os.path.realpath(shared_dir())
        or not name.startswith(f"{SHARED_PREFIX}{pid}-")
    ):
        raise ProtocolError(f"the reply names {path!r}, not a reply file of its executor")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise ProtocolError(f"the reply file {path} cannot be read ({exc.strerror})") from None
    try:
        os.unlink(path)
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ProtocolError(f"the reply file {path} is not a regular file")
        if info.st_size == 0:
            return memoryview(b"")
        mapped = mmap.mmap(fd, info.st_size, access=mmap.ACCESS_COPY)
    finally:
        os.close(fd)
    return memoryview(mapped)


def remove_shared(pid: int) -> None:
    """Reply files a process left behind (it was stopped before its reply was read)."""
    for path in glob.glob(os.path.join(shared_dir(), f"{SHARED_PREFIX}{pid}-*")):
        with contextlib.suppress(OSError):
            os.unlink(path)
