"""The frames an executor and a remote window exchange over a byte stream (an SSH channel's
standard input and output): ``OKXF``, the payload's length (8 bytes, big-endian), then the
payload: the zlib-compressed pickle of the message and, beside it, its large arrays (pickle
protocol 5's out-of-band buffers), each compressed in pieces on every core. The two machines
share no memory, so a reply is sent whole.

Version :data:`PROTOCOL` changes whenever a frame or a request changes shape; both ends say
theirs (and the package's version) in the first exchange, see :mod:`.server`.
"""

from __future__ import annotations

import os
import pickle
import struct
import zlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

PROTOCOL = 1
MAGIC = b"OKXF"
_HEAD = struct.Struct(">4sQ")
HEAD_BYTES = _HEAD.size
# Level 1: a trace's records shrink many times at hundreds of MB/s; higher levels gain
# little on them and cost seconds.
_LEVEL = 1
# Arrays of this size or more travel beside the pickle, compressed in pieces of _PIECE bytes
# on every core at once: a kept trace is hundreds of MB before compression.
_OUT_OF_BAND = 1 << 20
_PIECE = 8 << 20


class ProtocolError(ValueError):
    """The stream carried something that is not a frame (a login banner, a stray print)."""


def encode(message: Any) -> bytes:
    """``message`` as one frame."""
    large: list[memoryview] = []

    def out_of_band(buffer: pickle.PickleBuffer) -> bool:
        raw = buffer.raw()
        if raw.nbytes < _OUT_OF_BAND:
            return True
        large.append(raw)
        return False

    main = pickle.dumps(message, protocol=5, buffer_callback=out_of_band)
    pieces = [main, *(b[at : at + _PIECE] for b in large for at in range(0, b.nbytes, _PIECE))]
    packed = _each(lambda piece: zlib.compress(piece, _LEVEL), pieces)
    counts = [-(-b.nbytes // _PIECE) for b in large]
    buffers, at = [], 1
    for raw, count in zip(large, counts, strict=True):
        buffers.append((raw.nbytes, packed[at : at + count]))
        at += count
    payload = pickle.dumps((packed[0], buffers), protocol=5)
    return _HEAD.pack(MAGIC, len(payload)) + payload


def decode(payload: bytes | bytearray | memoryview) -> Any:
    main, buffers = pickle.loads(payload)
    pieces = [piece for _, chunks in buffers for piece in chunks]
    unpacked = iter(_each(zlib.decompress, pieces))
    arrays = []
    for size, chunks in buffers:
        whole = bytearray(size)
        at = 0
        for _ in chunks:
            piece = next(unpacked)
            whole[at : at + len(piece)] = piece
            at += len(piece)
        arrays.append(whole)
    return pickle.loads(zlib.decompress(main), buffers=arrays)


def _each(function: Callable[[Any], bytes], items: list[Any]) -> list[bytes]:
    """``function`` of each item, on every core where there are several (zlib lets go of
    the interpreter's lock while it works)."""
    if len(items) < 2:
        return [function(item) for item in items]
    with ThreadPoolExecutor(min(len(items), os.cpu_count() or 1)) as pool:
        return list(pool.map(function, items))


class FrameReader:
    """Frames from bytes fed in as they arrive, in pieces of any size."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._frames: list[bytes] = []
        self._last = 0  # the size of the last whole frame

    def feed(self, data: bytes) -> None:
        """Take ``data``; :class:`ProtocolError` when the stream is not frames."""
        self._buffer += data
        while len(self._buffer) >= HEAD_BYTES:
            magic, size = _HEAD.unpack_from(self._buffer)
            if magic != MAGIC:
                seen = bytes(self._buffer[:120]).decode("utf-8", "replace")
                raise ProtocolError(f"not the executor's protocol: {seen!r}")
            if len(self._buffer) < HEAD_BYTES + size:
                return
            self._frames.append(bytes(self._buffer[HEAD_BYTES : HEAD_BYTES + size]))
            self._last = size
            del self._buffer[: HEAD_BYTES + size]

    @property
    def pending(self) -> tuple[int, int]:
        """(bytes received, bytes expected) of the frame arriving now, or of the last whole
        one when none is arriving."""
        if not self._buffer:
            return (self._last, self._last)
        if len(self._buffer) < HEAD_BYTES:
            return (len(self._buffer), 0)
        _, size = _HEAD.unpack_from(self._buffer)
        return (len(self._buffer) - HEAD_BYTES, size)

    def ready(self) -> bool:
        return bool(self._frames)

    def pop(self) -> Any:
        """The oldest whole frame's message."""
        return decode(self._frames.pop(0))
