"""The frames an executor and a remote window exchange over a byte stream (an SSH channel's
standard input and output). Each carries one message of :mod:`explorer.engine.codec` (data
only: a JSON text and its arrays' bytes), compressed. The two machines share no memory, so a
reply is sent whole.

A frame, every number big-endian::

    head   "OKXP", protocol (2 bytes), flags (2: bit 0 set on a reply), request number (4),
           the body's size in bytes (8)
    body   the JSON text's compressed and inflated sizes (4 + 4), the number of blobs (4);
           per blob its inflated size (8) and number of pieces (4); per piece its compressed
           and inflated sizes (4 + 4); then the JSON text and the pieces, zlib-compressed

Every size is declared before anything is read or inflated and checked against the limits
(:data:`MAX_FRAME_BYTES` for what arrives, the reader's ``inflated_limit`` for what it
becomes): a frame over them is refused at its head, a piece that inflates past its declared
size stops there. Protocol 1 framed a pickle behind ``OKXF``; such a frame is recognised by its
head and never read (:class:`~explorer.engine.codec.VersionMismatch`).
"""

from __future__ import annotations

import os
import struct
import zlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from explorer.engine.codec import (
    MAX_BLOBS,
    MAX_TEXT_BYTES,
    PROTOCOL,
    ProtocolError,
    VersionMismatch,
    decode_message,
    encode_message,
    size_text,
)

MAGIC = b"OKXP"
OLD_MAGIC = b"OKXF"  # protocol 1's frames
_HEAD = struct.Struct(">4sHHIQ")
HEAD_BYTES = _HEAD.size
_COUNTS = struct.Struct(">III")
_BLOB = struct.Struct(">QI")
_PIECE_SIZES = struct.Struct(">II")
REPLY = 1
# What one frame may be as it arrives, and by default what its data may become: a kept trace
# of the default budget (320 MiB of records) is well inside both.
MAX_FRAME_BYTES = 1 << 30
MAX_INFLATED_BYTES = 2 << 30
# Level 1: a trace's records shrink many times at hundreds of MB/s; higher levels gain
# little on them and cost seconds.
_LEVEL = 1
# Blobs are compressed in pieces of _PIECE bytes on every core at once (a kept trace is
# hundreds of MB before compression); a piece may declare at most _MAX_PIECE.
_PIECE = 8 << 20
_MAX_PIECE = 64 << 20


class NotFrames(ProtocolError):
    """The stream carries something other than frames (a login banner, a stray print)."""


def encode(message: Any, number: int = 0, reply: bool = False) -> bytes:
    """``message`` as one frame (a request's ``number``, or the number of the request it
    answers); :class:`~explorer.engine.codec.CodecError` for a message that is not data."""
    text, blobs = encode_message(message)
    pieces: list[Any] = [text]
    counts = []
    for blob in blobs:
        chunks = [blob[at : at + _PIECE] for at in range(0, blob.nbytes, _PIECE)]
        pieces += chunks
        counts.append(len(chunks))
    packed = _each(lambda piece: zlib.compress(piece, _LEVEL), pieces)
    table = [_COUNTS.pack(len(packed[0]), len(text), len(blobs))]
    table += [_BLOB.pack(blob.nbytes, count) for blob, count in zip(blobs, counts, strict=True)]
    table += [
        _PIECE_SIZES.pack(len(p), len(raw)) for p, raw in zip(packed[1:], pieces[1:], strict=True)
    ]
    body = b"".join([*table, *packed])
    flags = REPLY if reply else 0
    return _HEAD.pack(MAGIC, PROTOCOL, flags, number & 0xFFFFFFFF, len(body)) + body


def _each(function: Callable[[Any], bytes], items: list[Any]) -> list[bytes]:
    """``function`` of each item, on every core where there are several (zlib lets go of
    the interpreter's lock while it works)."""
    if len(items) < 2:
        return [function(item) for item in items]
    with ThreadPoolExecutor(min(len(items), os.cpu_count() or 1)) as pool:
        return list(pool.map(function, items))


def read_head(
    head: bytes | bytearray | memoryview, limit: int = MAX_FRAME_BYTES
) -> tuple[int, int, int]:
    """``(flags, number, body size)`` of a frame's head, checked: ``ProtocolError`` for bytes
    that are not a frame, another protocol's frame or a frame over ``limit``."""
    magic, protocol, flags, number, size = _HEAD.unpack_from(head)
    if magic == OLD_MAGIC:
        raise VersionMismatch("it speaks protocol 1 (an older explorer)", 1)
    if magic != MAGIC:
        seen = bytes(head[:120]).decode("utf-8", "replace")
        raise NotFrames(f"not the executor's protocol: {seen!r}")
    if protocol != PROTOCOL:
        older = "an older" if protocol < PROTOCOL else "a newer"
        raise VersionMismatch(f"it speaks protocol {protocol} ({older} explorer)", protocol)
    if size > limit:
        raise ProtocolError(
            f"it announced a frame of {size_text(size)}; the limit is {size_text(limit)}"
        )
    return flags, number, size


def decode(body: bytes | bytearray | memoryview, inflated_limit: int = MAX_INFLATED_BYTES) -> Any:
    """The message of a frame's ``body``: every size checked before anything is inflated,
    each piece inflated to at most its declared size."""
    view = memoryview(body).cast("B")
    if len(view) < _COUNTS.size:
        raise ProtocolError(f"a frame's body of {len(view)} bytes is too short to be one")
    text_stored, text_size, count = _COUNTS.unpack_from(view)
    at = _COUNTS.size
    if count > MAX_BLOBS or at + count * _BLOB.size > len(view):
        raise ProtocolError(f"a frame declares {count} data blocks, more than it holds")
    blobs = [_BLOB.unpack_from(view, at + i * _BLOB.size) for i in range(count)]
    at += count * _BLOB.size
    pieces_total = sum(n for _, n in blobs)
    if at + pieces_total * _PIECE_SIZES.size > len(view):
        raise ProtocolError(f"a frame declares {pieces_total} pieces, more than it holds")
    pieces = [
        _PIECE_SIZES.unpack_from(view, at + i * _PIECE_SIZES.size) for i in range(pieces_total)
    ]
    at += pieces_total * _PIECE_SIZES.size
    _check_sizes(text_size, blobs, pieces, inflated_limit)
    stored = text_stored + sum(s for s, _ in pieces)
    if at + stored != len(view):
        raise ProtocolError(
            f"a frame's parts add up to {at + stored} bytes, but its body is {len(view)}"
        )
    text = _inflate(view[at : at + text_stored], text_size)
    at += text_stored
    arrays = [bytearray(size) for size, _ in blobs]
    jobs = []  # each piece: its compressed bytes, its size inflated, where it goes
    numbers = iter(range(len(pieces)))
    for whole, (_, n) in zip(arrays, blobs, strict=True):
        filled = 0
        for _ in range(n):
            stored_size, inflated = pieces[next(numbers)]
            jobs.append((view[at : at + stored_size], inflated, whole, filled))
            at += stored_size
            filled += inflated

    def place(job: tuple[memoryview, int, bytearray, int]) -> bytes:
        data, inflated, whole, filled = job
        whole[filled : filled + inflated] = _inflate(data, inflated)
        return b""

    _each(place, jobs)  # each piece is freed as soon as it is in place
    return decode_message(text, arrays)


def _check_sizes(
    text_size: int,
    blobs: list[tuple[int, int]],
    pieces: list[tuple[int, int]],
    inflated_limit: int,
) -> None:
    if text_size > MAX_TEXT_BYTES:
        raise ProtocolError(
            f"it sent a message of {size_text(text_size)}; the limit is {size_text(MAX_TEXT_BYTES)}"
        )
    total = text_size + sum(size for size, _ in blobs)
    if total > inflated_limit:
        raise ProtocolError(
            f"it sent {size_text(total)} after decompression; the limit is "
            f"{size_text(inflated_limit)}"
        )
    at = 0
    for size, n in blobs:
        declared = pieces[at : at + n]
        at += n
        if any(inflated > _MAX_PIECE for _, inflated in declared):
            raise ProtocolError(f"a piece larger than {size_text(_MAX_PIECE)} is declared")
        if sum(inflated for _, inflated in declared) != size:
            raise ProtocolError(
                f"a data block of {size_text(size)} is declared with pieces that add up to "
                f"{size_text(sum(inflated for _, inflated in declared))}"
            )


def _inflate(data: memoryview, size: int) -> bytes:
    """``data`` inflated, which must give exactly ``size`` bytes: inflation stops there."""
    inflater = zlib.decompressobj()
    try:
        out = inflater.decompress(data, size) if size else b""  # a limit of 0 means none
        if not inflater.eof and inflater.decompress(inflater.unconsumed_tail if size else data, 1):
            raise ProtocolError(
                f"a piece declared as {size_text(size)} inflates to more: inflation stopped there"
            )
    except zlib.error as exc:
        raise ProtocolError(f"a compressed piece is damaged ({exc})") from None
    if len(out) != size or not inflater.eof or inflater.unused_data:
        raise ProtocolError(
            f"a piece declared as {size_text(size)} inflates to {size_text(len(out))}"
            + ("" if inflater.eof else ", cut short")
            + (", with bytes after its end" if inflater.unused_data else "")
        )
    return out


class FrameReader:
    """Frames from bytes fed in as they arrive, in pieces of any size. ``replies``: the frames
    expected are replies (a window's reader), else requests (an executor's)."""

    def __init__(
        self,
        replies: bool = True,
        frame_limit: int = MAX_FRAME_BYTES,
        inflated_limit: int = MAX_INFLATED_BYTES,
    ) -> None:
        self._buffer = bytearray()
        self._frames: list[tuple[int, bytearray]] = []
        self._last = 0  # the size of the last whole frame
        self._replies = replies
        self.frame_limit = frame_limit
        self.inflated_limit = inflated_limit

    def feed(self, data: bytes) -> None:
        """Take ``data``; :class:`ProtocolError` when the stream is not frames of this
        protocol (checked as soon as a frame's head is here)."""
        self._buffer += data
        while self._buffer:
            if len(self._buffer) < HEAD_BYTES:
                start = bytes(self._buffer[:4])
                if not (MAGIC.startswith(start) or OLD_MAGIC.startswith(start)):
                    seen = bytes(self._buffer[:120]).decode("utf-8", "replace")
                    raise NotFrames(f"not the executor's protocol: {seen!r}")
                return
            flags, number, size = read_head(self._buffer, self.frame_limit)
            if bool(flags & REPLY) != self._replies:
                raise ProtocolError(
                    "it sent back a request, not a reply: it repeats what it is sent instead "
                    "of running the executor"
                    if self._replies
                    else "it sent a reply where a request was expected"
                )
            if len(self._buffer) < HEAD_BYTES + size:
                return
            if len(self._buffer) == HEAD_BYTES + size:
                body, self._buffer = self._buffer, bytearray()
                del body[:HEAD_BYTES]
            else:
                body = self._buffer[HEAD_BYTES : HEAD_BYTES + size]
                del self._buffer[: HEAD_BYTES + size]
            self._frames.append((number, body))
            self._last = size

    @property
    def pending(self) -> tuple[int, int]:
        """(bytes received, bytes expected) of the frame arriving now, or of the last whole
        one when none is arriving."""
        if not self._buffer:
            return (self._last, self._last)
        if len(self._buffer) < HEAD_BYTES:
            return (len(self._buffer), 0)
        size = _HEAD.unpack_from(self._buffer)[4]
        return (len(self._buffer) - HEAD_BYTES, size)

    @property
    def partial(self) -> bool:
        """Whether part of a frame has arrived and not the rest."""
        return bool(self._buffer)

    def ready(self) -> bool:
        return bool(self._frames)

    def waiting(self) -> int:
        """How many whole frames are here, not yet taken."""
        return len(self._frames)

    def pop(self) -> tuple[int, Any]:
        """The oldest whole frame's request number and message; :class:`ProtocolError` for
        one that breaks the protocol."""
        number, body = self.pop_frame()
        return number, self.decode(body)

    def pop_frame(self) -> tuple[int, bytearray]:
        """The oldest whole frame's request number and body, not decoded yet."""
        return self._frames.pop(0)

    def decode(self, body: bytearray) -> Any:
        """A body's message, within this reader's limits."""
        return decode(body, self.inflated_limit)
