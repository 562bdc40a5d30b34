"""The executor's messages as data only, for its local pipe and for a remote window's stream.

A message is one JSON text and, beside it, the raw bytes of its arrays and byte strings
("blobs"), which the frame carrying it places: compressed pieces on a stream (remote/wire.py),
or the pipe and a file in shared memory (reply.py). JSON gives names, numbers (NaN and the
infinities too), strings, lists and string-keyed maps; an object with a ``"$"`` key is one of
a few tagged values:

    {"$": "tuple", "v": [...]}                      a tuple
    {"$": "pairs", "v": [[key, value], ...]}        a map whose keys are not all strings
    {"$": "bytes", "b": 3}                          blob 3, as bytes
    {"$": "array", "dtype": "<f4", "shape": [2, 3], "b": 0}
                                                    blob 0 as an array of an allowed dtype
    {"$": "scalar", "dtype": "<i8", "v": 7}         a numpy scalar
    {"$": "complex", "v": [1.0, -2.0]}              a complex number
    {"$": "RunResult", "family": ..., ...}          one of our records, by its class's name

Nothing in a message names code: a record is rebuilt only from :data:`RECORDS`, an explicit
list of our own frozen dataclasses, each field checked against its annotation (an unknown
record or field, a missing one or a value of another type is a :class:`ProtocolError` naming
it). An array's dtype is one of :data:`ARRAY_DTYPES` and its shape must match its blob's size
exactly; nesting deeper than :data:`MAX_DEPTH` is refused. Each request and each reply kind
has one schema (:func:`check_request`, :func:`check_reply`). A function the window asks the
executor to call travels by its name, from :mod:`explorer.engine.calls`.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import math
import types
import typing
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any, Union

import numpy as np

# Version 1 pickled its messages; 2 is this data-only format. Both ends say theirs in every
# frame's header (remote/wire.py, reply.py) and in the first exchange.
PROTOCOL = 2
MAX_DEPTH = 48
# A message's JSON text: the largest real one (a trace's reply with the order of tens of
# thousands of work-groups) is a few MB; each JSON number or string costs tens of bytes
# more once read.
MAX_TEXT_BYTES = 64 << 20
MAX_DIMS = 32
MAX_BLOBS = 1 << 16
ARRAY_DTYPES = frozenset(
    np.dtype(name).str
    for name in (
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float16",
        "float32",
        "float64",
        "complex64",
        "complex128",
    )
)

# Every record that crosses, as module:qualname (imported on first use: the executor's
# process starts with the standard library alone). A record's JSON names it by its qualname.
RECORDS: tuple[str, ...] = (
    "explorer.engine.records:DeviceInfo",
    "explorer.engine.records:Counterpart",
    "explorer.engine.records:SizeRule",
    "explorer.engine.records:Variant",
    "explorer.engine.records:RunRequest",
    "explorer.engine.records:Refusal",
    "explorer.engine.records:Timing",
    "explorer.engine.records:Verdict",
    "explorer.engine.records:RunResult",
    "explorer.description.declarations:BufferDecl",
    "explorer.description.declarations:LocalDecl",
    "explorer.description.declarations:ScalarDecl",
    "explorer.description.declarations:SamplerDecl",
    "explorer.description.declarations:CustomSpec",
    "explorer.description.launch:Promise",
    "explorer.trace.recorded:BufferInfo",
    "explorer.trace.recorded:Site",
    "explorer.trace.recorded:NotTraced",
    "explorer.trace.recorded:Trace",
    "explorer.trace.recorded:Finding",
    "explorer.trace.recorded:SiteStats",
    "explorer.trace.analysis.result:Analysis",
    "explorer.frontend.anatomy:Term",
    "explorer.frontend.anatomy:Definition",
    "explorer.frontend.anatomy:Condition",
    "explorer.frontend.anatomy:AccessAnatomy",
    "explorer.frontend.anatomy:KernelAnatomy",
    "explorer.trace.instrument.model:AnatomySite",
    "explorer.trace.anatomy:AnatomyValues",
    "explorer.trace.anatomy:TraceAnatomy",
    "explorer.trace.diff_records:Access",
    "explorer.trace.diff_records:Difference",
    "explorer.trace.diff_records:TraceDiff",
    "explorer.trace.diff_sets:OnlyOne",
    "explorer.trace.diff_sets:BufferDiff",
    "explorer.engine.record.requests:TraceRequest",
    "explorer.engine.record.requests:TracedRun",
    "explorer.engine.record.trace_against:Against",
    "explorer.engine.record.oclgrind:OclgrindMessage",
    "explorer.engine.record.oclgrind:OclgrindCheck",
)
_TAGS = frozenset(("tuple", "pairs", "bytes", "array", "scalar", "complex"))
# The JSON values a numpy scalar of each kind is sent as (bool, signed, unsigned, float).
_SCALAR_VALUES: dict[str, tuple[type, ...]] = {
    "b": (bool,),
    "i": (int,),
    "u": (int,),
    "f": (int, float),
    "c": (),
}


class ProtocolError(EOFError):
    """What the other end sent is not this protocol (text that is not a frame, another
    version, a size over its limit, a value of the wrong type): nothing of it is used, and
    the connection cannot go on (hence an end of the stream)."""


class VersionMismatch(ProtocolError):
    """The other end speaks another version of the protocol (``protocol``)."""

    def __init__(self, message: str, protocol: int) -> None:
        super().__init__(message)
        self.protocol = protocol


class CodecError(ValueError):
    """A value this end was asked to send is not data the protocol carries."""


def size_text(count: int) -> str:
    """``4.0 GiB``, ``64.0 KiB``, ``12 bytes``."""
    for unit, shift in (
        ("EiB", 60),
        ("PiB", 50),
        ("TiB", 40),
        ("GiB", 30),
        ("MiB", 20),
        ("KiB", 10),
    ):
        if count >= 1 << shift:
            return f"{count / (1 << shift):.1f} {unit}"
    return f"{count} bytes"


# -- records -------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _Record:
    cls: type
    hints: dict[str, Any]
    required: frozenset[str]


@cache
def _modules() -> dict[str, str]:
    """Each record's module, by the record's name (a name is one record's only)."""
    modules = {entry.partition(":")[2]: entry.partition(":")[0] for entry in RECORDS}
    assert len(modules) == len(RECORDS), "two records of one name"
    return modules


def _record(name: str) -> _Record | None:
    """The record called ``name``, its fields' annotations resolved; its module is imported
    now, on first use (a process that sends and reads only a few kinds of record imports
    only their modules); None for a name :data:`RECORDS` does not list."""
    module = _modules().get(name)
    return None if module is None else _load(module, name)


@cache
def _load(module: str, name: str) -> _Record:
    cls = getattr(importlib.import_module(module), name)
    assert dataclasses.is_dataclass(cls) and isinstance(cls, type), name
    assert cls.__dataclass_params__.frozen, name  # type: ignore[attr-defined]
    assert cls.__name__ == name and name not in _TAGS, name
    hints = typing.get_type_hints(cls)
    fields = dataclasses.fields(cls)
    required = frozenset(
        f.name
        for f in fields
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    )
    return _Record(cls, {f.name: hints[f.name] for f in fields}, required)


def _records() -> dict[str, _Record]:
    """Every record by name (each module imported)."""
    found: dict[str, _Record] = {}
    for name in _modules():
        record = _record(name)
        assert record is not None
        found[name] = record
    return found


_encoded: dict[type, tuple[str, tuple[str, ...]] | None] = {}


def _encoded_as(kind: type) -> tuple[str, tuple[str, ...]] | None:
    """The name and the fields' names of the record class ``kind``; None for a class that is
    not one (looked up by its own module and name: nothing else is imported)."""
    if kind not in _encoded:
        name = kind.__qualname__
        record = _record(name) if _modules().get(name) == kind.__module__ else None
        _encoded[kind] = (
            (name, tuple(record.hints)) if record is not None and record.cls is kind else None
        )
    return _encoded[kind]


def record_types() -> tuple[type, ...]:
    """The record classes :data:`RECORDS` names."""
    return tuple(record.cls for record in _records().values())


# -- encoding ------------------------------------------------------------------------------


def encode_message(value: Any) -> tuple[bytes, list[memoryview]]:
    """``value`` as a JSON text (UTF-8) and the blobs it refers to (views of the arrays'
    own memory: nothing is copied). :class:`CodecError` for a value that is not data."""
    blobs: list[memoryview] = []
    tree = _encode(value, 0, blobs)
    try:
        text = json.dumps(tree, allow_nan=True, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError) as exc:  # a value the walk let through
        raise CodecError(f"the message cannot be written as data ({exc})") from None
    return text.encode("ascii"), blobs


def _encode(value: Any, depth: int, blobs: list[memoryview]) -> Any:
    kind = type(value)
    if value is None or kind is str or kind is bool or kind is int:
        return value
    if kind is float:
        return value
    if depth >= MAX_DEPTH:
        raise CodecError(f"the message nests deeper than {MAX_DEPTH} levels")
    depth += 1
    if kind is list:
        return [_encode(item, depth, blobs) for item in value]
    if kind is tuple:
        return {"$": "tuple", "v": [_encode(item, depth, blobs) for item in value]}
    if kind is dict:
        if "$" not in value and all(type(key) is str for key in value):
            return {key: _encode(item, depth, blobs) for key, item in value.items()}
        return {
            "$": "pairs",
            "v": [[_encode(k, depth, blobs), _encode(v, depth, blobs)] for k, v in value.items()],
        }
    if kind is np.ndarray:
        return _encode_array(value, blobs)
    if isinstance(value, np.generic):
        dtype = _sendable_dtype(value.dtype)
        item = value.item()
        return {"$": "scalar", "dtype": dtype.str, "v": _plain_number(item)}
    if kind is bytes or kind is bytearray:
        blobs.append(memoryview(value).cast("B"))
        return {"$": "bytes", "b": len(blobs) - 1}
    if kind is complex:
        return {"$": "complex", "v": [value.real, value.imag]}
    record = _encoded_as(kind)
    if record is not None:
        name, fields = record
        tree = {"$": name}
        for field in fields:
            tree[field] = _encode(getattr(value, field), depth, blobs)
        return tree
    # Subclasses of the plain types (a str enum, numpy's str) travel as the plain type.
    for plain in (bool, int, float, str):
        if isinstance(value, plain):
            return plain(value)
    raise CodecError(f"{kind.__qualname__} is not data the executor's protocol carries")


def _plain_number(item: Any) -> Any:
    if isinstance(item, complex):
        return [item.real, item.imag]
    return item


def _sendable_dtype(dtype: np.dtype) -> np.dtype:
    if dtype.byteorder == ">":
        dtype = dtype.newbyteorder("<")
    if dtype.str not in ARRAY_DTYPES:
        raise CodecError(f"an array of {dtype} is not data the executor's protocol carries")
    return dtype


def _encode_array(array: np.ndarray, blobs: list[memoryview]) -> dict[str, Any]:
    dtype = _sendable_dtype(array.dtype)
    if array.dtype != dtype:
        array = array.astype(dtype)
    if array.ndim > MAX_DIMS:
        raise CodecError(f"an array of {array.ndim} dimensions is more than {MAX_DIMS}")
    flat = np.ascontiguousarray(array).reshape(-1)
    blobs.append(flat.view(np.uint8).data)
    return {"$": "array", "dtype": dtype.str, "shape": list(array.shape), "b": len(blobs) - 1}


# -- decoding ------------------------------------------------------------------------------


def decode_message(text: bytes | bytearray | memoryview, blobs: Sequence[Any]) -> Any:
    """The value :func:`encode_message` gave, from the other end's ``text`` and ``blobs``
    (each a writable buffer of bytes); :class:`ProtocolError` naming what is wrong."""
    try:
        tree = json.loads(bytes(text))
    except RecursionError:
        raise ProtocolError(f"the message nests deeper than {MAX_DEPTH} levels") from None
    except (ValueError, UnicodeDecodeError) as exc:  # json's errors are ValueErrors
        shown = bytes(text[:60]).decode("utf-8", "replace")
        raise ProtocolError(f"the message is not a JSON text ({exc}): {shown!r}") from None
    return _Decoder(blobs).value(tree, 0, "the message")


class _Decoder:
    def __init__(self, blobs: Sequence[Any]) -> None:
        self.blobs = blobs

    def value(self, node: Any, depth: int, path: str) -> Any:
        kind = type(node)
        if kind is list:
            if depth >= MAX_DEPTH:
                raise ProtocolError(f"the message nests deeper than {MAX_DEPTH} levels")
            return [
                item if type(item) not in (list, dict) else self.value(item, depth + 1, path)
                for item in node
            ]
        if kind is not dict:
            return node  # null, a boolean, a number or a string: JSON's own
        if depth >= MAX_DEPTH:
            raise ProtocolError(f"the message nests deeper than {MAX_DEPTH} levels")
        if "$" not in node:
            return {key: self.value(item, depth + 1, path) for key, item in node.items()}
        tag = node["$"]
        if type(tag) is not str:
            raise ProtocolError(f"{path}: a tag must be a name, not {_shown(tag)}")
        if tag in _TAGS:
            return self.tagged(tag, node, depth + 1, path)
        record = _record(tag)
        if record is None:
            raise ProtocolError(f"{path}: unknown record type {_shown(tag)}")
        return self.record(tag, record, node, depth + 1, path)

    def tagged(self, tag: str, node: dict[str, Any], depth: int, path: str) -> Any:
        if tag == "tuple":
            items = self._list(node, "v", path)
            return tuple(
                [
                    item if type(item) not in (list, dict) else self.value(item, depth, path)
                    for item in items
                ]
            )
        if tag == "pairs":
            pairs = self._list(node, "v", path)
            out: dict[Any, Any] = {}
            for pair in pairs:
                if type(pair) is not list or len(pair) != 2:
                    raise ProtocolError(
                        f"{path}: a map's entry is [key, value], not {_shown(pair)}"
                    )
                key = self.value(pair[0], depth, path)
                try:
                    out[key] = self.value(pair[1], depth, path)
                except TypeError:  # an unhashable key (a list, a map)
                    raise ProtocolError(
                        f"{path}: {_shown(pair[0])} cannot be a map's key"
                    ) from None
            return out
        if tag == "bytes":
            return bytes(self._blob(node, path))
        if tag == "array":
            return self.array(node, path)
        if tag == "scalar":
            return self.scalar(node, path)
        # complex
        parts = self._list(node, "v", path)
        if len(parts) != 2:
            raise ProtocolError(f"{path}: a complex number is [real, imaginary]")
        return complex(self._number(parts[0], path), self._number(parts[1], path))

    def record(
        self, name: str, record: _Record, node: dict[str, Any], depth: int, path: str
    ) -> Any:
        values: dict[str, Any] = {}
        for key, item in node.items():
            if key == "$":
                continue
            annotation = record.hints.get(key)
            where = f"{name}.{key}" if path == "the message" else f"{path}.{key}"
            if annotation is None:
                raise ProtocolError(f"{where}: {name} has no field {key!r}")
            value = self.value(item, depth, where)
            if not _matches(value, annotation):
                raise ProtocolError(
                    f"{where}: expected {_type_text(annotation)}, got {_shown(value)}"
                )
            values[key] = value
        missing = record.required - values.keys()
        if missing:
            raise ProtocolError(f"{path}: {name} lacks {', '.join(sorted(missing))}")
        try:
            return record.cls(**values)
        except (TypeError, ValueError) as exc:
            raise ProtocolError(f"{path}: {name} cannot be made of what was sent ({exc})") from None

    def scalar(self, node: dict[str, Any], path: str) -> Any:
        dtype = self._dtype(node, path)
        number = node.get("v")
        if dtype.kind == "c" and type(number) is list and len(number) == 2:
            number = complex(self._number(number[0], path), self._number(number[1], path))
        elif type(number) not in _SCALAR_VALUES[dtype.kind]:
            raise ProtocolError(f"{path}: {_shown(number)} is not a {dtype}")
        try:
            with np.errstate(over="raise", invalid="raise"):
                return np.array(number, dtype=dtype)[()]
        except (OverflowError, FloatingPointError, ValueError, TypeError):
            raise ProtocolError(f"{path}: {_shown(number)} is not a {dtype}") from None

    def array(self, node: dict[str, Any], path: str) -> np.ndarray:
        dtype = self._dtype(node, path)
        shape = node.get("shape")
        if (
            type(shape) is not list
            or len(shape) > MAX_DIMS
            or not all(type(n) is int and n >= 0 for n in shape)
        ):
            raise ProtocolError(
                f"{path}: an array's shape is at most {MAX_DIMS} sizes of 0 or more, not "
                f"{_shown(shape)}"
            )
        blob = self._blob(node, path)
        size = len(blob)
        expected = math.prod(shape) * dtype.itemsize
        if expected != size:
            raise ProtocolError(
                f"{path}: an array of {dtype} and shape {tuple(shape)} is {size_text(expected)}, "
                f"but its data is {size_text(size)}"
            )
        return np.frombuffer(blob, dtype=dtype).reshape(shape)

    def _blob(self, node: dict[str, Any], path: str) -> Any:
        index = node.get("b")
        if type(index) is not int or not 0 <= index < len(self.blobs):
            raise ProtocolError(
                f"{path}: data block {_shown(index)} is not among the {len(self.blobs)} sent"
            )
        return self.blobs[index]

    def _dtype(self, node: dict[str, Any], path: str) -> np.dtype:
        name = node.get("dtype")
        if type(name) is not str or name not in ARRAY_DTYPES:
            raise ProtocolError(
                f"{path}: {_shown(name)} is not an allowed element type (booleans, integers, "
                "floating-point and complex numbers)"
            )
        return np.dtype(name)

    @staticmethod
    def _list(node: dict[str, Any], key: str, path: str) -> list[Any]:
        items = node.get(key)
        if type(items) is not list:
            raise ProtocolError(f"{path}: {node.get('$')} holds a list, not {_shown(items)}")
        return items

    @staticmethod
    def _number(value: Any, path: str) -> float:
        if type(value) not in (int, float):
            raise ProtocolError(f"{path}: expected a number, got {_shown(value)}")
        return float(value)


def _shown(value: Any) -> str:
    """A value named in a message: its kind and, for a short one, itself."""
    kind = type(value).__name__
    if value is None or isinstance(value, (bool, int, float)):
        return f"{value!r} ({kind})"
    if isinstance(value, str):
        return repr(value if len(value) <= 40 else value[:40] + "…")
    if isinstance(value, np.ndarray):
        return f"an array of {value.dtype}"
    if isinstance(value, (list, tuple, dict)):
        return f"a {kind} of {len(value)}"
    return f"a {kind}"


# -- field types ---------------------------------------------------------------------------


def _matches(value: Any, annotation: Any) -> bool:
    """Whether ``value`` (decoded) is of the type ``annotation`` names."""
    return _checker(annotation)(value)


def _is_int(value: Any) -> bool:
    return type(value) is int or (
        isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    )


def _is_float(value: Any) -> bool:
    return type(value) is float or _is_int(value) or isinstance(value, (float, np.floating))


def _is_bool(value: Any) -> bool:
    return isinstance(value, (bool, np.bool_))


@cache
def _checker(annotation: Any) -> Callable[[Any], bool]:
    """A test of whether a value is of the type ``annotation`` names, made once per type (a
    trace's reply checks tens of thousands of values)."""
    if annotation is Any or annotation is object:
        return lambda value: True
    if annotation is None or annotation is type(None):
        return lambda value: value is None
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is None:
        plain = {int: _is_int, float: _is_float, bool: _is_bool}.get(annotation)
        if plain is not None:
            return plain
        if not isinstance(annotation, type):
            raise TypeError(f"the protocol cannot check a field of type {annotation}")
        return lambda value: isinstance(value, annotation)
    if origin is Union or origin is types.UnionType:
        options = tuple(_checker(arg) for arg in args)
        return lambda value: any(check(value) for check in options)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        each = _checker(args[0])
        return lambda value: type(value) is tuple and all(map(each, value))
    if origin is tuple and len(set(args)) == 1:  # (int, int, int), say
        each, count = _checker(args[0]), len(args)
        return lambda value: type(value) is tuple and len(value) == count and all(map(each, value))
    if origin is tuple:
        parts = tuple(_checker(arg) for arg in args)
        return lambda value: (
            type(value) is tuple
            and len(value) == len(parts)
            and all(check(item) for check, item in zip(parts, value, strict=True))
        )
    if origin is list:
        each = _checker(args[0])
        return lambda value: type(value) is list and all(map(each, value))
    if origin is dict:
        keys, values = _checker(args[0]), _checker(args[1])
        return lambda value: (
            type(value) is dict and all(map(keys, value)) and all(map(values, value.values()))
        )
    raise TypeError(f"the protocol cannot check a field of type {annotation}")


def _type_text(annotation: Any) -> str:
    if annotation is type(None):
        return "None"
    if isinstance(annotation, type) and typing.get_origin(annotation) is None:
        return annotation.__name__
    return str(annotation).replace("typing.", "").replace("NoneType", "None")


# -- requests and replies ------------------------------------------------------------------


@cache
def _schemas() -> tuple[dict[str, Any], dict[str, Any]]:
    """Each request's payload type, and each reply's value type, by request kind."""

    def records(name: str) -> type:
        record = _record(name)
        assert record is not None, name
        return record.cls

    device = records("DeviceInfo")
    requests: dict[str, Any] = {
        "hello": dict[str, Any],
        "files": dict[str, bytes],
        "run": records("RunRequest"),
        "trace": types.GenericAlias(tuple, (records("TraceRequest"), int, int, bool, int)),
        "devices": type(None),
        "call": tuple[str, tuple[Any, ...]],
    }
    replies: dict[str, Any] = {
        "hello": dict[str, Any],
        "files": dict[str, str],
        "run": records("RunResult"),
        "trace": records("TracedRun"),
        "devices": types.GenericAlias(list, (device,)) | types.GenericAlias(tuple, (device, ...)),
        "call": Any,
    }
    return requests, replies


REQUEST_KINDS = ("hello", "files", "run", "trace", "devices", "call")
_HELLO_FACTS = {"protocol": int, "version": str}


def check_request(message: Any, local: bool = False) -> tuple[str, Any]:
    """``(kind, payload)`` of a request, its payload checked against its kind's schema.
    ``local``: from the process that started this one, which may also send the notice
    ``("allow", names)`` (the functions of :func:`explorer.engine.calls.allow`)."""
    kinds = (*REQUEST_KINDS, "allow") if local else REQUEST_KINDS
    if type(message) is not tuple or len(message) != 2 or message[0] not in kinds:
        raise ProtocolError(
            f"a request is (kind, payload) with a kind among {', '.join(kinds)}; "
            f"got {_shown(message)}"
        )
    kind, payload = message
    schema = tuple[str, ...] if kind == "allow" else _schemas()[0][kind]
    if not _matches(payload, schema):
        raise ProtocolError(f"a {kind} request carries {_type_text(schema)}, not {_shown(payload)}")
    if kind == "hello":
        _check_facts(payload, "the hello")
        env = payload.get("env", {})
        if not _matches(env, dict[str, str]):
            raise ProtocolError(f"the hello's env maps names to strings, not {_shown(env)}")
    return kind, payload


# What the executor's process may say before its reply, each ``(notice, "")``: a build began,
# a build ended (the caller's clock for the kernel stops in between).
NOTICES = ("building", "built")


def check_reply(kind: str, message: Any) -> tuple[str, Any]:
    """``(status, value)`` of the reply to a ``kind`` request, checked against its schema:
    ``("ok", value)`` or ``("error", message)``; the hello's is ``("hello", facts)``. Before
    the reply to a request other than the hello may come notices (:data:`NOTICES`)."""
    if type(message) is not tuple or len(message) != 2:
        raise ProtocolError(f"a reply is (status, value), not {_shown(message)}")
    status, value = message
    statuses = ("hello", "error") if kind == "hello" else ("ok", "error", *NOTICES)
    if status not in statuses:
        raise ProtocolError(
            f"the reply to {kind} says {_shown(status)}, not {' or '.join(statuses)}"
        )
    if status == "error":
        if type(value) is not str:
            raise ProtocolError(f"an error reply carries its message, not {_shown(value)}")
        return status, value
    if status in NOTICES:
        if value != "":
            raise ProtocolError(f"a {status} notice carries nothing, not {_shown(value)}")
        return status, value
    schema = _schemas()[1][kind]
    if not _matches(value, schema):
        raise ProtocolError(
            f"the reply to {kind} carries {_type_text(schema)}, not {_shown(value)}"
        )
    if kind == "hello":
        _check_facts(value, "the hello's reply")
    return status, value


def _check_facts(facts: dict[str, Any], what: str) -> None:
    for key, kind in _HELLO_FACTS.items():
        if not _matches(facts.get(key), kind):
            raise ProtocolError(
                f"{what} names its {key} as {kind.__name__}, not {_shown(facts.get(key))}"
            )
