"""The frames an executor and a remote window exchange over a byte stream (an SSH channel's
standard input and output): ``OKXF``, the payload's length (8 bytes, big-endian), then the
payload, a zlib-compressed pickle. Arrays travel inside the pickle, compressed with it: the
two machines share no memory, so a reply is sent whole.

Version :data:`PROTOCOL` changes whenever a frame or a request changes shape; both ends say
theirs (and the package's version) in the first exchange, see :mod:`.server`.
"""

from __future__ import annotations

import pickle
import struct
import zlib
from typing import Any

PROTOCOL = 1
MAGIC = b"OKXF"
_HEAD = struct.Struct(">4sQ")
HEAD_BYTES = _HEAD.size
# Level 1: a trace's records shrink several times at hundreds of MB/s; higher levels gain
# little on them and cost seconds.
_LEVEL = 1


class ProtocolError(ValueError):
    """The stream carried something that is not a frame (a login banner, a stray print)."""


def encode(message: Any) -> bytes:
    """``message`` as one frame."""
    payload = zlib.compress(pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL), _LEVEL)
    return _HEAD.pack(MAGIC, len(payload)) + payload


def decode(payload: bytes | bytearray | memoryview) -> Any:
    return pickle.loads(zlib.decompress(payload))


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
