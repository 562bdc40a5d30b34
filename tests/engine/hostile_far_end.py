"""A far end that breaks the executor's protocol on purpose, one way per MODE: what a hostile
or broken host could answer. ``python hostile_far_end.py MODE [PROBE]``; standard library only,
so it starts at once. It answers the window's hello as the executor does for the modes that
misbehave later (on the request after it), and waits for its input to close before it ends
(as the executor does), except where the mode is to end early."""

from __future__ import annotations

import json
import os
import pickle
import struct
import sys
import zlib

HEAD = struct.Struct(">4sHHIQ")  # magic, protocol, flags (1: a reply), request number, size
OLD_HEAD = struct.Struct(">4sQ")  # protocol 1: magic, size, then a pickle


def frame(
    message: object = None,
    number: int = 1,
    *,
    text: bytes | None = None,
    blobs: tuple[tuple[int, list[tuple[bytes, int]]], ...] = (),
    magic: bytes = b"OKXP",
    version: int = 2,
) -> bytes:
    """A reply frame of ``message`` (or of the JSON ``text``) with ``blobs``: each its
    declared size and its pieces (compressed bytes, declared size inflated)."""
    raw = json.dumps(message).encode() if text is None else text
    packed = zlib.compress(raw)
    body = struct.pack(">III", len(packed), len(raw), len(blobs))
    body += b"".join(struct.pack(">QI", size, len(pieces)) for size, pieces in blobs)
    body += b"".join(struct.pack(">II", len(p), n) for _, pieces in blobs for p, n in pieces)
    body += packed + b"".join(p for _, pieces in blobs for p, _ in pieces)
    return HEAD.pack(magic, version, 1, number, len(body)) + body


def declared_bomb() -> tuple[int, list[tuple[bytes, int]]]:
    """64 KB that declares 4 GiB: 64 pieces of 1 KB, each said to inflate to 64 MiB."""
    return (4 << 30, [(bytes(1 << 10), 64 << 20)] * 64)


def read_request() -> tuple[int, object]:
    """The next request's number and message (as JSON: enough to answer the hello)."""
    head = read_exactly(HEAD.size)
    _, _, _, number, size = HEAD.unpack(head)
    body = read_exactly(size)
    stored, _, _ = struct.unpack_from(">III", body)
    return number, json.loads(zlib.decompress(body[12 : 12 + stored]))


def read_exactly(count: int) -> bytes:
    data = b""
    while len(data) < count:
        more = os.read(0, count - len(data))
        if not more:
            sys.exit(0)
        data += more
    return data


def send(data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(1, view) :]


def hello() -> None:
    """Answer the window's hello as the executor would."""
    number, message = read_request()
    facts = message["v"][1]  # ("hello", {"protocol", "version", "env"})
    reply = {"protocol": 2, "version": facts["version"], "python": "3", "machine": "far"}
    send(frame({"$": "tuple", "v": ["hello", reply]}, number))


def wait_for_the_end() -> None:
    while os.read(0, 65536):
        pass


class RunsACommand:
    """Unpickled, it runs ``touch PROBE`` (what protocol 1's readers did with a frame)."""

    def __init__(self, probe: str) -> None:
        self.probe = probe

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (os.system, (f"touch {self.probe}",))


def deflate_bomb(inflated: int) -> bytes:
    """A zlib stream of ``inflated`` zero bytes (4 GiB fits in about 4 MB): a block of 1 MiB
    flushed so that the next stands alone, and that next one repeated. Its end and checksum
    never come."""
    compressor = zlib.compressobj(9)
    first = compressor.compress(bytes(1 << 20)) + compressor.flush(zlib.Z_FULL_FLUSH)
    alone = compressor.compress(bytes(1 << 20)) + compressor.flush(zlib.Z_FULL_FLUSH)
    return first + alone * (inflated // (1 << 20) - 1)


def main() -> None:
    mode = sys.argv[1]
    probe = sys.argv[2] if len(sys.argv) > 2 else "probe"
    devices = [{"$": "tuple", "v": ["ok", []]}]
    if mode == "pickle-v1":  # protocol 1's frame whose pickle runs a command
        read_request()
        data = pickle.dumps(("hello", RunsACommand(probe)))
        send(OLD_HEAD.pack(b"OKXF", len(data)) + data)
    elif mode == "pickle-v2":  # the same pickle behind this protocol's head
        number, _ = read_request()
        send(frame(number=number, text=pickle.dumps(("hello", RunsACommand(probe)))))
    elif mode == "old":  # an explorer of protocol 1 answering its own way
        read_request()
        data = pickle.dumps((zlib.compress(pickle.dumps(("hello", {"protocol": 1}))), []))
        send(OLD_HEAD.pack(b"OKXF", len(data)) + data)
    elif mode == "newer":
        number, message = read_request()
        send(frame({"$": "tuple", "v": ["hello", {}]}, number, version=3))
    elif mode == "garbage":
        send(b"Welcome to the GPU server! Last login: yesterday\n")
    elif mode == "oversized":
        read_request()
        send(HEAD.pack(b"OKXP", 2, 1, 1, 1 << 40))
    elif mode == "bomb-declared":  # 64 KB that says it becomes 4 GiB
        hello()
        number, _ = read_request()
        message = {"$": "tuple", "v": ["ok", {"$": "bytes", "b": 0}]}
        send(frame(message, number, blobs=(declared_bomb(),)))
    elif mode == "bomb-deflate":  # 4 MB that inflates to 4 GiB, declared as 1 MiB
        hello()
        number, _ = read_request()
        message = {"$": "tuple", "v": ["ok", {"$": "bytes", "b": 0}]}
        send(frame(message, number, blobs=((1 << 20, [(deflate_bomb(4 << 30), 1 << 20)]),)))
    elif mode == "truncated":
        hello()
        number, _ = read_request()
        whole = frame(devices[0], number)
        send(whole[: len(whole) // 2])
        return  # and the connection closes
    elif mode == "stall":
        read_request()
    elif mode == "stall-mid-frame":  # the second answer stops after its first bytes
        hello()
        number, _ = read_request()
        send(frame(devices[0], number))
        number, _ = read_request()
        send(frame(devices[0], number)[:30])
    elif mode == "wrong-types":
        hello()
        number, _ = read_request()
        device = {"$": "DeviceInfo", "platform_index": "zero"}
        send(frame({"$": "tuple", "v": ["ok", [device]]}, number))
    elif mode == "unknown-record":
        hello()
        number, _ = read_request()
        popen = {"$": "Popen", "args": ["touch", probe]}
        send(frame({"$": "tuple", "v": ["ok", [popen]]}, number))
    elif mode == "deep":
        hello()
        number, _ = read_request()
        text = b'{"$":"tuple","v":["ok",' + b"[" * 100_000 + b"]" * 100_000 + b"]}"
        send(frame(number=number, text=text))
    elif mode == "unasked":  # a reply to a request that was not sent
        hello()
        number, _ = read_request()
        send(frame(devices[0], number + 5))
    else:
        raise SystemExit(f"unknown mode {mode}")
    wait_for_the_end()


if __name__ == "__main__":
    main()
