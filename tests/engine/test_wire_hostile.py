"""A far end that breaks the protocol, by accident or on purpose, is named with what it sent
and nothing of it is used: no command runs, no memory is spent past the limits, no traceback,
and the command line ends with its documented code. Most cases feed bytes straight to the
frame reader and the decoder; a handful go through a real far end (tests/engine/
hostile_far_end.py, started with ``--executor-command``) and the command line."""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import pickle
import re
import shlex
import struct
import subprocess
import sys
import threading
import time
import tracemalloc
import types
import typing
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from explorer import __version__
from explorer.engine import calls, codec, reply
from explorer.engine.executor import ExecutorError, only_while
from explorer.engine.remote import client, wire
from explorer.engine.remote.client import CommandExecutor
from explorer.engine.remote.hosts import Host
from tests.engine.hostile_far_end import RunsACommand, declared_bomb, deflate_bomb, frame
from tests.engine.remote_helpers import PYTHON, SEARCH_PATH

ROOT = Path(__file__).resolve().parents[2]
FAR_END = shlex.quote(str(Path(__file__).with_name("hostile_far_end.py")))


def far_end(mode: str, probe: Path | None = None) -> str:
    return f"{PYTHON} {FAR_END} {mode}" + (f" {shlex.quote(str(probe))}" if probe else "")


def refused(data: bytes, **limits: int) -> str:
    """Why a reply stream of ``data`` is refused (fed in pieces, as a stream brings it)."""
    reader = wire.FrameReader(**limits)
    with pytest.raises(codec.ProtocolError) as info:
        for at in range(0, len(data), 7919):
            reader.feed(data[at : at + 7919])
        assert reader.ready(), "the frame never completed"
        reader.pop()
    return str(info.value)


def ok(value: Any, number: int = 1) -> bytes:
    return wire.encode(("ok", value), number, reply=True)


# -- the head: what is read before anything else ------------------------------------------

BANNERS = [
    b"Welcome to the GPU server!\n",
    b"Last login: Mon Jan  1 00:00:00 2029 from 10.0.0.1\n",
    b"\x00" * 40,
    b"\xff\xfe\xfd garbage",
    b"OKX",  # a start of a frame, then something else
    b"OKXQ" + bytes(30),
    b'{"kind": "hello"}\n',
    b"Traceback (most recent call last):\n",
    *[np.random.default_rng(seed).bytes(64) for seed in range(12)],
]


def test_a_stream_that_is_not_frames_is_refused_at_its_first_bytes():
    for data in BANNERS:
        reader = wire.FrameReader()
        with pytest.raises(wire.NotFrames, match="not the executor's protocol"):
            reader.feed(data + b"?" if data == b"OKX" else data)


def test_protocol_1_frames_are_recognised_by_their_head_and_never_unpickled(tmp_path):
    probe = tmp_path / "probe"
    data = pickle.dumps(("hello", RunsACommand(str(probe))))
    old = struct.pack(">4sQ", b"OKXF", len(data)) + data
    reader = wire.FrameReader()
    with pytest.raises(codec.VersionMismatch) as info:
        reader.feed(old)
    assert info.value.protocol == 1 and "protocol 1 (an older explorer)" in str(info.value)
    assert not probe.exists()


@pytest.mark.parametrize("version", [0, 1, 3, 4, 99, 65535])
def test_another_protocols_frame_is_named_with_its_number(version):
    data = wire.encode(("ok", None), 1, reply=True)
    data = data[:4] + struct.pack(">H", version) + data[6:]
    with pytest.raises(codec.VersionMismatch) as info:
        wire.FrameReader().feed(data)
    assert info.value.protocol == version
    assert f"protocol {version}" in str(info.value)
    assert ("older" if version < 2 else "newer") in str(info.value)


@pytest.mark.parametrize(
    "size", [(1 << 30) + 1, 1_500_000_000, 1 << 40, (1 << 63) + 5, (1 << 64) - 1]
)
def test_a_frame_over_the_limit_is_refused_from_its_head_alone(size):
    head = struct.pack(">4sHHIQ", b"OKXP", 2, 1, 1, size)
    message = refused(head)
    assert f"announced a frame of {codec.size_text(size)}; the limit is 1.0 GiB" in message


def test_a_request_sent_back_is_named_as_an_echo():
    request = wire.encode(("hello", {"protocol": 2, "version": "x", "env": {}}), 1)
    assert "sent back a request, not a reply: it repeats what it is sent" in refused(request)
    with pytest.raises(codec.ProtocolError, match="a reply where a request was expected"):
        wire.FrameReader(replies=False).feed(ok(None))


# -- the body: sizes declared before anything is inflated ----------------------------------


def _peak_while(function: Any) -> tuple[Any, int]:
    tracemalloc.start()
    try:
        try:
            outcome: Any = function()
        except codec.ProtocolError as exc:
            outcome = exc
        return outcome, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_64_kb_declaring_4_gib_is_refused_before_any_of_it_is_inflated():
    data = frame({"$": "tuple", "v": ["ok", {"$": "bytes", "b": 0}]}, blobs=(declared_bomb(),))
    assert len(data) < 70_000
    reader = wire.FrameReader()
    reader.feed(data)
    outcome, peak = _peak_while(reader.pop)
    assert isinstance(outcome, codec.ProtocolError)
    assert "sent 4.0 GiB after decompression; the limit is 2.0 GiB" in str(outcome)
    assert peak < 4 << 20


def test_a_piece_that_inflates_past_its_declared_size_stops_there():
    bomb = deflate_bomb(4 << 30)  # 4 MB of deflate that would become 4 GiB
    data = frame(
        {"$": "tuple", "v": ["ok", {"$": "bytes", "b": 0}]}, blobs=((1 << 20, [(bomb, 1 << 20)]),)
    )
    reader = wire.FrameReader()
    reader.feed(data)
    outcome, peak = _peak_while(reader.pop)
    assert isinstance(outcome, codec.ProtocolError)
    assert "a piece declared as 1.0 MiB inflates to more: inflation stopped there" in str(outcome)
    assert peak < 16 << 20


def test_limits_are_the_readers_own():
    data = ok(np.zeros(1 << 18))  # 2 MiB of zeros, a few KB compressed
    assert "sent 2.0 MiB after decompression; the limit is 1.0 MiB" in refused(
        data, inflated_limit=1 << 20
    )
    assert "announced a frame of" in refused(data, frame_limit=100)


def _body(data: bytes) -> bytes:
    return data[wire.HEAD_BYTES :]


GOOD = _body(ok({"records": np.arange(300_000, dtype=np.int64), "text": "x" * 100}))


def test_a_body_cut_anywhere_is_refused():
    cuts = {0, 1, 5, 11, 12, 13, 20, 30, 40, 64, 100, 1000} | set(range(len(GOOD) - 80, len(GOOD)))
    for cut in sorted(cuts):
        with pytest.raises(codec.ProtocolError):
            wire.decode(GOOD[:cut])
    assert len(cuts) > 80


def _with_counts(
    text: bytes, blobs: list[tuple[int, list[tuple[bytes, int]]]], **raw: Any
) -> bytes:
    """A body of ``text`` (JSON) and ``blobs`` (declared size, [(compressed, declared)])."""
    packed = zlib.compress(text)
    body = struct.pack(
        ">III",
        raw.get("stored", len(packed)),
        raw.get("size", len(text)),
        raw.get("count", len(blobs)),
    )
    body += b"".join(struct.pack(">QI", size, len(pieces)) for size, pieces in blobs)
    body += b"".join(struct.pack(">II", len(p), n) for _, pieces in blobs for p, n in pieces)
    return (
        body + packed + b"".join(p for _, pieces in blobs for p, _ in pieces) + raw.get("tail", b"")
    )


TEXT = json.dumps({"$": "tuple", "v": ["ok", {"$": "bytes", "b": 0}]}).encode()
PIECE = zlib.compress(bytes(1000))
BODIES = {
    "more blocks than it holds": (_with_counts(TEXT, [], count=1 << 20), "data blocks, more than"),
    "more blocks than allowed": (_with_counts(TEXT, [], count=(1 << 16) + 1), "data blocks"),
    "more pieces than it holds": (
        _with_counts(TEXT, [(1000, [(PIECE, 1000)])])[:12] + struct.pack(">QI", 1000, 1 << 30),
        "pieces, more than it holds",
    ),
    "pieces that do not add up": (_with_counts(TEXT, [(999, [(PIECE, 1000)])]), "add up to"),
    "a piece over its limit": (
        _with_counts(TEXT, [(100 << 20, [(PIECE, 100 << 20)])]),
        "a piece larger than 64.0 MiB",
    ),
    "a piece shorter than declared": (
        _with_counts(TEXT, [(2000, [(PIECE, 2000)])]),
        "declared as 2.0 KiB inflates to 1000 bytes",
    ),
    "a damaged piece": (_with_counts(TEXT, [(1000, [(b"not zlib" * 3, 1000)])]), "damaged"),
    "bytes after a piece": (
        _with_counts(TEXT, [(1000, [(PIECE + b"more", 1000)])]),
        "with bytes after its end",
    ),
    "bytes after the body": (_with_counts(TEXT, [], tail=b"!"), "add up to"),
    "a text larger than declared": (_with_counts(TEXT, [], size=10), "inflates to more"),
    "a text over its limit": (
        _with_counts(TEXT, [], size=300 << 20),
        "a message of 300.0 MiB; the limit is 64.0 MiB",
    ),
    "a text that is not JSON": (_with_counts(b"\x80\x05pickle", []), "not a JSON text"),
    "a pickle for a text": (
        _with_counts(pickle.dumps(("hello", RunsACommand("/nonexistent/probe"))), []),
        "not a JSON text",
    ),
}


@pytest.mark.parametrize("name", BODIES)
def test_a_malformed_body_is_refused_naming_what_is_wrong(name):
    body, expected = BODIES[name]
    with pytest.raises(codec.ProtocolError, match=expected):
        wire.decode(body)


# -- the message: data only, each record's fields checked ----------------------------------


def decoded(message: Any, blobs: list[Any] | None = None) -> Any:
    text = message if isinstance(message, bytes) else json.dumps(message).encode()
    return codec.decode_message(text, blobs if blobs is not None else [])


def sample(annotation: Any) -> Any:
    """A value of the type ``annotation`` names."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if annotation is Any or annotation is type(None):
        return None
    if origin in (typing.Union, types.UnionType):
        return sample(next(a for a in args if a is not type(None)))
    if origin is tuple:
        return (sample(args[0]),) if args[-1] is Ellipsis else tuple(sample(a) for a in args)
    if origin is dict:
        return {sample(args[0]): sample(args[1])}
    simple = {int: 3, float: 1.5, str: "s", bool: True, bytes: b"b", np.ndarray: np.ones(2)}
    if annotation in simple:
        return simple[annotation]
    hints = typing.get_type_hints(annotation)
    return annotation(**{f.name: sample(hints[f.name]) for f in dataclasses.fields(annotation)})


@functools.cache
def record_fields() -> list[tuple[type, str, Any]]:
    return [
        (cls, f.name, typing.get_type_hints(cls)[f.name])
        for cls in codec.record_types()
        for f in dataclasses.fields(cls)
    ]


def _tree(value: Any) -> Any:
    text, blobs = codec.encode_message(value)
    assert not blobs or all(isinstance(b, memoryview) for b in blobs)
    return json.loads(text), [bytearray(b) for b in blobs]


@pytest.mark.parametrize("cls", codec.record_types(), ids=lambda c: c.__name__)
def test_every_record_made_of_sample_values_comes_back_equal(cls):
    value = sample(cls)
    tree, blobs = _tree(value)
    back = decoded(tree, blobs)
    assert type(back) is cls
    assert codec.encode_message(back)[0] == codec.encode_message(value)[0]


def _takes_text(annotation: Any) -> bool:
    options = (
        typing.get_args(annotation)
        if typing.get_origin(annotation) in (typing.Union, types.UnionType)
        else (annotation,)
    )
    return str in options


@pytest.mark.parametrize("cls", codec.record_types(), ids=lambda c: c.__name__)
def test_a_field_of_the_wrong_type_is_named(cls):
    """Each field of each record in turn (those typed Any take any data)."""
    fields = [(name, annotation) for c, name, annotation in record_fields() if c is cls]
    checked = 0
    for name, annotation in fields:
        if annotation is Any:
            continue
        tree, blobs = _tree(sample(cls))
        tree[name] = 12345 if _takes_text(annotation) else "a string"
        with pytest.raises(codec.ProtocolError) as info:
            decoded(tree, blobs)
        assert f"{cls.__name__}.{name}: expected " in str(info.value)
        checked += 1
    assert checked >= len(fields) - 2


@pytest.mark.parametrize("cls", codec.record_types(), ids=lambda c: c.__name__)
def test_an_unknown_or_missing_field_is_named(cls):
    tree, blobs = _tree(sample(cls))
    with pytest.raises(codec.ProtocolError, match=f"{cls.__name__} has no field 'command'"):
        decoded({**tree, "command": "touch probe"}, blobs)
    required = [
        f.name
        for f in dataclasses.fields(cls)
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    ]
    if required:
        del tree[required[0]]
        with pytest.raises(codec.ProtocolError, match=f"{cls.__name__} lacks {required[0]}"):
            decoded(tree, blobs)


@pytest.mark.parametrize(
    "tag", ["Popen", "os.system", "__reduce__", "builtins.eval", "function", "object", "runresult"]
)
def test_an_unknown_record_type_is_refused(tag):
    with pytest.raises(codec.ProtocolError, match=f"unknown record type '{tag}'"):
        decoded({"$": "tuple", "v": ["ok", {"$": tag, "args": ["touch", "probe"]}]})


@pytest.mark.parametrize("depth", [49, 60, 200, 5000, 200_000])
@pytest.mark.parametrize("shape", ["lists", "maps", "tuples"])
def test_deep_nesting_is_refused(depth, shape):
    opening, closing = {
        "lists": (b"[", b"]"),
        "maps": (b'{"a":', b"}"),
        "tuples": (b'{"$":"tuple","v":[', b"]}"),
    }[shape]
    text = opening * depth + b"1" + closing * depth
    with pytest.raises(codec.ProtocolError, match="nests deeper than 48 levels"):
        decoded(text)


def test_nesting_within_the_limit_is_read():
    text = b"[" * 47 + b"1" + b"]" * 47
    assert decoded(text) is not None


ARRAYS = {
    "objects": ({"dtype": "|O", "shape": [1]}, "not an allowed element type"),
    "void": ({"dtype": "|V8", "shape": [1]}, "not an allowed element type"),
    "structured": ({"dtype": "[('a', '<i4')]", "shape": [1]}, "not an allowed element type"),
    "datetimes": ({"dtype": "<M8[s]", "shape": [1]}, "not an allowed element type"),
    "long double": ({"dtype": "<f16", "shape": [1]}, "not an allowed element type"),
    "big-endian": ({"dtype": ">f4", "shape": [2]}, "not an allowed element type"),
    "a name": ({"dtype": "float32", "shape": [2]}, "not an allowed element type"),
    "no dtype": ({"shape": [2]}, "not an allowed element type"),
    "shape too large": ({"dtype": "<f4", "shape": [3]}, "is 12 bytes, but its data is 8 bytes"),
    "shape too small": ({"dtype": "<f4", "shape": [1]}, "is 4 bytes, but its data is 8 bytes"),
    "huge shape": ({"dtype": "<f8", "shape": [1 << 40, 1 << 40]}, "but its data is 8 bytes"),
    "negative shape": ({"dtype": "<f4", "shape": [-2]}, "shape is at most 32 sizes"),
    "shape of text": ({"dtype": "<f4", "shape": ["2"]}, "shape is at most 32 sizes"),
    "too many dimensions": ({"dtype": "<f4", "shape": [1] * 33}, "shape is at most 32 sizes"),
    "a block not sent": ({"dtype": "<f4", "shape": [2], "b": 4}, "block 4 (int) is not among"),
    "a block by name": ({"dtype": "<f4", "shape": [2], "b": "0"}, "block '0' is not among"),
}


@pytest.mark.parametrize("name", ARRAYS)
def test_an_array_outside_the_allowed_dtypes_and_its_data_is_refused(name):
    fields, expected = ARRAYS[name]
    node = {"$": "array", "b": 0, **fields}
    with pytest.raises(codec.ProtocolError, match=re.escape(expected)):
        decoded({"$": "tuple", "v": ["ok", node]}, [bytearray(8)])


VALUES = {
    "a scalar out of range": ({"$": "scalar", "dtype": "|i1", "v": 300}, "is not a int8"),
    "a float for an integer": ({"$": "scalar", "dtype": "<i8", "v": 1.5}, "is not a int64"),
    "text for a number": ({"$": "scalar", "dtype": "<f4", "v": "1"}, "is not a float32"),
    "a float overflowing": ({"$": "scalar", "dtype": "<f2", "v": 1e300}, "is not a float16"),
    "a bad pair": ({"$": "pairs", "v": [[1, 2, 3]]}, "a map's entry is [key, value]"),
    "an unhashable key": ({"$": "pairs", "v": [[[1], 2]]}, "cannot be a map's key"),
    "pairs of text": ({"$": "pairs", "v": "x"}, "pairs holds a list"),
    "a tuple of a map": ({"$": "tuple", "v": {"a": 1}}, "tuple holds a list"),
    "a complex of text": ({"$": "complex", "v": ["1", 2]}, "expected a number"),
    "a short complex": ({"$": "complex", "v": [1]}, "a complex number is [real, imaginary]"),
    "bytes not sent": ({"$": "bytes", "b": 0}, "block 0 (int) is not among the 0 sent"),
    "a numbered tag": ({"$": 5}, "a tag must be a name"),
}


@pytest.mark.parametrize("name", VALUES)
def test_a_malformed_value_is_refused(name):
    node, expected = VALUES[name]
    with pytest.raises(codec.ProtocolError, match=re.escape(expected)):
        decoded({"$": "tuple", "v": ["ok", node]})


REPLIES = [
    ("run", ("ok", "a result"), "the reply to run carries RunResult"),
    ("trace", ("ok", None), "the reply to trace carries TracedRun"),
    ("devices", ("ok", [1, 2]), "the reply to devices carries"),
    ("files", ("ok", {"a": 1}), "the reply to files carries dict\\[str, str\\]"),
    ("hello", ("hello", {"protocol": "2", "version": "x"}), "protocol as int"),
    ("hello", ("hello", {"protocol": 2}), "version as str"),
    ("hello", ("ok", {}), "says 'ok', not hello or error"),
    ("run", ("hello", {}), "says 'hello', not ok or error"),
    ("run", ("error", 5), "an error reply carries its message"),
    ("run", ("ok", None, 1), "a reply is \\(status, value\\)"),
    ("run", ["ok", None], "a reply is \\(status, value\\)"),
    ("call", "ok", "a reply is \\(status, value\\)"),
]


@pytest.mark.parametrize(("kind", "message", "expected"), REPLIES)
def test_each_reply_is_checked_against_its_kinds_schema(kind, message, expected):
    with pytest.raises(codec.ProtocolError, match=expected):
        codec.check_reply(kind, message)


REQUESTS = [
    (("call", (print, ())), "a call request carries"),
    (("call", ("os:system", "touch probe")), "a call request carries"),
    (("run", None), "a run request carries RunRequest"),
    (("files", {"a": "text"}), "a files request carries dict\\[str, bytes\\]"),
    (("shell", "ls"), "a request is \\(kind, payload\\)"),
    (("allow", ("os:system",)), "a request is \\(kind, payload\\)"),  # only its parent may
    (("hello", {"protocol": 2, "version": "x", "env": {"A": 1}}), "env maps names to strings"),
]


@pytest.mark.parametrize(("message", "expected"), REQUESTS)
def test_each_request_is_checked_against_its_kinds_schema(message, expected):
    with pytest.raises(codec.ProtocolError, match=expected):
        codec.check_request(message)


@pytest.mark.parametrize(
    "name",
    [
        "os:system",
        "subprocess:Popen",
        "builtins:eval",
        "antigravity:fly",
        "posix:execv",
        "explorer.engine.measure.bench:bench",
        "explorer.engine.calls:allow_named",
    ],
)
def test_a_call_outside_the_list_is_refused_before_anything_is_imported(name, tmp_path):
    from explorer.engine.serve import handle

    status, message = handle("call", (name, (f"touch {tmp_path / 'probe'}",)))
    assert status == "error" and "is not among its functions" in message
    assert "antigravity" not in sys.modules and not (tmp_path / "probe").exists()


def test_a_function_not_listed_is_not_sent(executor):
    with pytest.raises(ExecutorError, match="posix:system is not among the functions"):
        executor.call(os.system, "true")


# -- the local pipe: the same rules, and the shared file checked ----------------------------


def _local(data: bytes, pid: int | None = None) -> str:
    with pytest.raises(codec.ProtocolError) as info:
        reply.unpack(data, os.getpid() if pid is None else pid)
    return str(info.value)


def _shared_reply() -> bytes:
    return reply.pack(("ok", np.arange(1 << 18, dtype=np.int64)))


def _renamed(packed: bytes, name: str) -> bytes:
    """``packed`` naming ``name`` as its shared file."""
    head = struct.Struct(">4sHHQII")
    magic, protocol, flags, text, count, old = head.unpack_from(packed)
    table = packed[head.size : head.size + count * 17]
    rest = packed[head.size + count * 17 + old :]
    new = name.encode()
    return head.pack(magic, protocol, flags, text, count, len(new)) + table + new + rest


def test_a_reply_naming_another_file_is_refused_and_the_file_left_alone(tmp_path):
    packed = _shared_reply()
    (path,) = Path(reply.shared_dir()).glob(f"{reply.SHARED_PREFIX}{os.getpid()}-*")
    victim = tmp_path / "victim"
    victim.write_bytes(bytes(4 << 20))
    assert "not a reply file of its executor" in _local(_renamed(packed, str(victim)))
    shm = Path(reply.shared_dir())
    outside = str(tmp_path / f"{reply.SHARED_PREFIX}{os.getpid()}-x")  # its name, elsewhere
    assert "not a reply file of its executor" in _local(_renamed(packed, outside))
    assert "not a reply file of its executor" in _local(packed, pid=os.getpid() + 1)
    link = shm / f"{reply.SHARED_PREFIX}{os.getpid()}-link"
    link.symlink_to(victim)
    try:
        assert "cannot be read" in _local(_renamed(packed, str(link)))
    finally:
        link.unlink()
    assert victim.read_bytes() == bytes(4 << 20)
    status, value = reply.unpack(packed, os.getpid())  # the real one, which removes its file
    assert status == "ok" and value[-1] == (1 << 18) - 1 and not path.exists()


def test_a_span_past_its_file_or_message_is_refused():
    packed = bytearray(_shared_reply())
    span = struct.Struct(">BQQ")
    at = struct.calcsize(">4sHHQII")
    where, offset, size = span.unpack_from(packed, at)
    assert where == reply.IN_FILE
    span.pack_into(packed, at, where, offset, size + 64)
    assert "lies past the end of its shared file" in _local(bytes(packed))
    inline = bytearray(reply.pack(("ok", np.arange(10))))
    where, offset, size = span.unpack_from(inline, at)
    span.pack_into(inline, at, where, offset + 1, size)
    assert "lies past the end of its message" in _local(bytes(inline))


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda b: b"XXXX" + b[4:], "not the executor's protocol"),
        (lambda b: b[:4] + struct.pack(">H", 1) + b[6:], "protocol 1, not 2"),
        (lambda b: b[:6] + struct.pack(">H", 0) + b[8:], "a request came where a reply"),
        (lambda b: b[:16] + struct.pack(">I", 1 << 20) + b[20:], "data blocks"),
        (lambda b: b[:8] + struct.pack(">Q", 1 << 40) + b[16:], "the limit is 64.0 MiB"),
        (lambda b: b[:8] + struct.pack(">Q", 1 << 20) + b[16:], "before its data"),
        (lambda b: b[:10], "too short to be one"),
    ],
    ids=[
        "magic",
        "version",
        "direction",
        "blocks",
        "text over its limit",
        "text past the end",
        "short",
    ],
)
def test_a_malformed_local_message_is_refused(change, expected):
    assert expected in _local(change(reply.pack(("ok", [1, 2, 3]))))


def test_a_reply_is_never_read_as_a_request():
    assert reply.read_request(reply.pack_request(("run", None))) == ("run", None)
    with pytest.raises(codec.ProtocolError, match="a request came where a reply"):
        reply.read_request(reply.pack(("ok", None)))


# -- through a far end: the window and the command line ------------------------------------


def _connect(mode: str, probe: Path | None = None, timeout_s: float = 30.0) -> str:
    far = CommandExecutor(Host.parse("far", far_end(mode, probe)))
    with far as executor, pytest.raises(ExecutorError) as info:
        executor.devices(timeout_s)
    message = str(info.value)
    assert "Traceback" not in message
    return message


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        (
            "pickle-v2",
            "broke the executor's protocol when it was greeted: the message is not a JSON",
        ),
        ("old", "far runs an older OpenCL Kernel Explorer (protocol 1)"),
        ("newer", "far runs a newer OpenCL Kernel Explorer (protocol 3)"),
        ("garbage", "printed something other than the executor's frames"),
        ("oversized", "announced a frame of 1.0 TiB; the limit is 1.0 GiB"),
        ("wrong-types", "DeviceInfo.platform_index: expected int, got 'zero'"),
        ("unknown-record", "unknown record type 'Popen'"),
        ("deep", "nests deeper than 48 levels"),
        ("unasked", "answered request 7 when request 2 was in flight"),
        ("truncated", "the connection closed in the middle of a frame"),
    ],
)
def test_a_far_end_that_breaks_the_protocol_is_named_with_what_it_sent(mode, expected, tmp_path):
    probe = tmp_path / "probe"
    message = _connect(mode, probe)
    assert expected in message, message
    assert not probe.exists()


def test_the_old_and_newer_protocols_say_what_to_install():
    for mode in ("old", "newer"):
        message = _connect(mode)
        assert f"offers to install opencl-kernel-explorer {__version__}" in message, message
        assert "--install" in message


def test_a_far_end_that_stalls_meets_the_deadline(monkeypatch):
    monkeypatch.setattr(client, "_CONNECT_S", 0.5)
    assert "far did not answer within 0.5 s" in _connect("stall")
    with CommandExecutor(Host.parse("far", far_end("stall-mid-frame"))) as executor:
        assert executor.devices() == []  # the first answer is whole, the second stops
        with pytest.raises(ExecutorError, match=r"timed out after 0\.5 s while running device"):
            executor.devices(0.5)


def test_cancel_and_a_caller_that_gave_up_reach_a_greeting_that_stalls():
    """The greeting waits as every request does: Cancel, or a caller that no longer wants
    the work, ends it at once and stops the far end."""
    far = CommandExecutor(Host.parse("far", far_end("stall")))
    canceller = threading.Timer(0.5, far.cancel)
    canceller.start()
    began = time.monotonic()
    try:
        with pytest.raises(ExecutorError, match="cancelled while connecting to far") as info:
            far.devices()
    finally:
        canceller.join()
    assert info.value.kind == "cancelled"
    assert time.monotonic() - began < 10
    given_up = threading.Event()
    giver = threading.Timer(0.5, given_up.set)
    giver.start()
    try:
        with only_while(lambda: not given_up.is_set()), pytest.raises(ExecutorError) as info:
            far.devices()
    finally:
        giver.join()
        far.close()
    assert info.value.kind == "cancelled"
    assert "cancelled while connecting to far" in str(info.value)


# The command line's main, then the peak of its own memory: VmHWM is that of the process
# since it started its program (a wait's rusage would count the test's own, copied at fork).
_MEASURED = (
    "import sys; from explorer.cli import main; code = main(sys.argv[1:]); "
    "peak = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0]; "
    "print('peak', peak.split()[1], file=sys.stderr); sys.exit(code)"
)


def _cli(mode: str, probe: Path | None = None, command: str = "") -> tuple[int, str, int]:
    """The exit code, standard error and peak memory (MB) of ``devices`` against a far end."""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            _MEASURED,
            "devices",
            "--executor-command",
            command or far_end(mode, probe),
        ],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": SEARCH_PATH},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    err, _, peak = done.stderr.rpartition("peak ")
    return done.returncode, err, int(peak) // 1024


def test_the_command_line_refuses_a_pickle_naming_a_command_and_runs_nothing(tmp_path):
    probe = tmp_path / "probe"
    code, err, _ = _cli("pickle-v1", probe)
    assert code == 2 and "Traceback" not in err
    assert "error: remote runs an older OpenCL Kernel Explorer (protocol 1)" in err
    assert "pip install it into the Python that remote's command runs" in err, err
    assert not probe.exists()


def test_the_command_line_stops_a_bomb_at_its_bound():
    code, err, peak_mb = _cli("bomb-deflate")
    assert code == 2 and "Traceback" not in err, err
    assert "error: remote broke the executor's protocol while running device discovery" in err
    assert "a piece declared as 1.0 MiB inflates to more: inflation stopped there" in err
    assert peak_mb < 400, peak_mb  # the command itself: Python, numpy, and nothing inflated


def test_a_frame_declaring_more_than_the_limit_is_an_error_not_a_crash():
    far = CommandExecutor(Host.parse("far", far_end("bomb-declared")))
    with far as executor, pytest.raises(ExecutorError) as info:
        executor.devices()
    assert info.value.kind == "error"  # the command line's code 2, as for a version mismatch
    assert "sent 4.0 GiB after decompression; the limit is 2.0 GiB" in str(info.value)


def test_the_command_line_names_a_far_end_that_repeats_what_it_is_sent():
    code, err, _ = _cli("", command="cat")
    assert code == 2 and "Traceback" not in err
    assert "remote broke the executor's protocol when it was greeted" in err
    assert "it repeats what it is sent instead of running the executor" in err


def test_a_lost_connection_mid_frame_is_a_crash():
    far = CommandExecutor(Host.parse("far", far_end("truncated")))
    with far as executor, pytest.raises(ExecutorError) as info:
        executor.devices()
    assert info.value.kind == "crash"  # the command line's code 4, as for any lost connection
    assert "the connection closed in the middle of a frame" in str(info.value)


def test_calls_are_named_never_sent_as_code():
    assert calls.name_of(calls.resolve("explorer.engine.measure.bench:run_memoised")).endswith(
        ":run_memoised"
    )
