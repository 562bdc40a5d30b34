"""Documents from outside read as untrusted input: capture folders, sessions, ``.sim`` files,
exercise folders, settings and caches.

Each is read one way: its size bounded before a byte is read (:func:`explorer.paths.read_user_bytes`
refuses folders, FIFOs and devices), its nesting bounded, every field checked against what it
must be (a message naming the file, the field and what was expected, never a traceback), and
every path it names kept inside the document's own folder (no absolute path, no ``..`` out,
no symbolic link out). A document that fails any of it is a :class:`DocumentError`.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import json
import math
import os
import stat
import types
import typing
from collections.abc import Callable
from pathlib import Path, PurePosixPath, PureWindowsPath
from tokenize import TokenError
from typing import Any, TypeVar

from explorer.paths import (
    DATA_LIMIT,
    TEXT_LIMIT,
    UserFileError,
    check_user_file,
    decode_text,
    load_user_array,
    read_user_bytes,
    shown,
)

# Deeper than any document of ours nests (a capture is five levels deep).
MAX_DEPTH = 32
T = TypeVar("T")


class DocumentError(UserFileError):
    """A document from outside that cannot be used; the message names its file, the field and
    what was expected."""


def read_json(
    path: str | os.PathLike[str], what: str, limit: int = TEXT_LIMIT, max_depth: int = MAX_DEPTH
) -> Any:
    """The JSON value of the file ``path`` (a ``what``), bounded in size and depth."""
    label = f"{what} {shown(os.fspath(path))}"
    return parse_json(decode_text(read_user_bytes(path, what, limit), label), label, max_depth)


def parse_json(text: str, label: str, max_depth: int = MAX_DEPTH) -> Any:
    """``text`` as JSON, or a :class:`DocumentError` naming ``label`` and the line."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DocumentError(f"{label} is not valid JSON (line {exc.lineno}: {exc.msg})") from None
    except RecursionError:
        raise DocumentError(f"{label} is nested deeper than {max_depth} levels") from None
    except ValueError as exc:  # an integer of thousands of digits, which Python refuses
        raise DocumentError(
            f"{label} holds a value that cannot be read: {shown(exc, 120)}"
        ) from None
    if _depth_over(value, max_depth):
        raise DocumentError(f"{label} is nested deeper than {max_depth} levels")
    return value


def _depth_over(value: Any, limit: int) -> bool:
    """Whether ``value`` nests lists and maps deeper than ``limit`` (walked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = (
            item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        )
        for child in children:
            if isinstance(child, (dict, list)):
                if depth + 1 > limit:
                    return True
                stack.append((child, depth + 1))
    return False


class Fields:
    """The fields of one map of a document, each taken with the type it must have:
    ``Fields(entry, "capture.json: launches[3]").integer("number", minimum=1)``."""

    def __init__(self, value: Any, where: str) -> None:
        if not isinstance(value, dict):
            raise DocumentError(f"{where}: expected a map of fields, found {_kind(value)}")
        self.value = value
        self.where = where

    def at(self, key: str) -> str:
        """The field ``key`` as a message names it: ``capture.json: launches[3].number`` (the
        document's own fields, where ``where`` ends with ``:``, as ``capture.json: version``)."""
        return f"{self.where} {key}" if self.where.endswith(":") else f"{self.where}.{key}"

    def has(self, key: str) -> bool:
        return self.value.get(key) is not None

    def _take(self, key: str, default: Any, check: Callable[[Any, str], T]) -> T:
        value = self.value.get(key)
        if value is None:
            if default is _REQUIRED:
                raise DocumentError(f"{self.at(key)}: missing")
            return default
        return check(value, self.at(key))

    def integer(
        self, key: str, default: Any = None, minimum: int | None = None, maximum: int | None = None
    ) -> Any:
        return self._take(key, default, lambda v, w: integer(v, w, minimum, maximum))

    def text(self, key: str, default: Any = None, limit: int = 1 << 20) -> Any:
        return self._take(key, default, lambda v, w: text(v, w, limit))

    def flag(self, key: str, default: Any = None) -> Any:
        return self._take(key, default, flag)

    def number(self, key: str, default: Any = None) -> Any:
        return self._take(key, default, number)

    def items(self, key: str, default: Any = None, limit: int = 1 << 20) -> Any:
        return self._take(key, default, lambda v, w: items(v, w, limit))

    def choice(self, key: str, choices: tuple[str, ...], default: Any = None) -> Any:
        """Text that must be one of ``choices``."""

        def check(value: Any, where: str) -> str:
            if value not in choices:
                raise DocumentError(
                    f"{where}: expected one of {', '.join(choices)}, found {_kind(value)}"
                )
            return str(value)

        return self._take(key, default, check)

    def file(self, key: str, folder: str | os.PathLike[str], default: Any = None) -> Any:
        """The name of a file inside ``folder`` (see :func:`inside`), as the document gives it."""

        def check(value: Any, where: str) -> str:
            inside(folder, text(value, where, 4096), where)
            return str(value)

        return self._take(key, default, check)

    def fields(self, key: str) -> Fields:
        return Fields(self.value.get(key), self.at(key))

    def integers(
        self,
        key: str,
        default: Any = None,
        limit: int = 64,
        minimum: int | None = None,
        maximum: int | None = None,
    ) -> Any:
        def check(value: Any, where: str) -> tuple[int, ...]:
            return tuple(
                integer(v, f"{where}[{i}]", minimum, maximum)
                for i, v in enumerate(items(value, where, limit))
            )

        return self._take(key, default, check)

    def texts(self, key: str, default: Any = None, limit: int = 4096) -> Any:
        def check(value: Any, where: str) -> tuple[str, ...]:
            return tuple(text(v, f"{where}[{i}]") for i, v in enumerate(items(value, where, limit)))

        return self._take(key, default, check)


REQUIRED: Any = object()
_REQUIRED = REQUIRED


def integer(value: Any, where: str, minimum: int | None = None, maximum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise DocumentError(f"{where}: expected a whole number, found {_kind(value)}")
    if minimum is not None and value < minimum:
        raise DocumentError(
            f"{where}: expected a whole number of at least {minimum}, found {value}"
        )
    if maximum is not None and value > maximum:
        raise DocumentError(f"{where}: expected a whole number of at most {maximum}, found {value}")
    return value


def number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise DocumentError(f"{where}: expected a number, found {_kind(value)}")
    if not math.isfinite(value):
        raise DocumentError(f"{where}: expected a finite number, found {value}")
    return float(value)


def text(value: Any, where: str, limit: int = 1 << 20) -> str:
    if not isinstance(value, str):
        raise DocumentError(f"{where}: expected text, found {_kind(value)}")
    if len(value) > limit:
        raise DocumentError(f"{where}: expected at most {limit} characters, found {len(value)}")
    return value


def flag(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise DocumentError(f"{where}: expected true or false, found {_kind(value)}")
    return value


def items(value: Any, where: str, limit: int = 1 << 20) -> list[Any]:
    if not isinstance(value, list):
        raise DocumentError(f"{where}: expected a list, found {_kind(value)}")
    if len(value) > limit:
        raise DocumentError(f"{where}: expected at most {limit} items, found {len(value)}")
    return value


def _kind(value: Any) -> str:
    names = {dict: "a map", list: "a list", str: "text", bool: "true/false", type(None): "null"}
    name = names.get(type(value), "a number" if isinstance(value, (int, float)) else "a value")
    quoted = (
        "" if isinstance(value, (dict, list)) or value is None else f" {shown(repr(value), 60)}"
    )
    return f"{name}{quoted}"


# -- paths a document names --------------------------------------------------------------


def inside(folder: str | os.PathLike[str], relative: str, where: str) -> Path:
    """The file ``relative`` names inside ``folder``: refused when it is absolute, climbs out
    with ``..``, or leads out through a symbolic link (the folder itself may be a link)."""
    if not isinstance(relative, str) or not relative or "\0" in relative:
        raise DocumentError(
            f"{where}: expected a file name inside the folder, found {shown(repr(relative))}"
        )
    for flavour in (PurePosixPath(relative), PureWindowsPath(relative)):
        if flavour.is_absolute() or flavour.drive or flavour.root:
            raise DocumentError(
                f"{where}: {shown(relative)} is an absolute path; a document names files inside "
                "its own folder only"
            )
    if ".." in PurePosixPath(relative.replace("\\", "/")).parts:
        raise DocumentError(
            f"{where}: {shown(relative)} climbs out of the folder (..); a document names files "
            "inside its own folder only"
        )
    base = os.path.realpath(folder)
    target = os.path.join(base, relative)
    if not _within(base, os.path.realpath(target)):
        raise DocumentError(
            f"{where}: {shown(relative)} leads out of the folder through a symbolic link; a "
            "document names files inside its own folder only"
        )
    return Path(target)


def is_inside(folder: str | os.PathLike[str], path: str | os.PathLike[str]) -> bool:
    """Whether ``path``, every link followed, lies within ``folder`` (links followed too)."""
    return _within(os.path.realpath(folder), os.path.realpath(path))


def _within(base: str, real: str) -> bool:
    """Whether the real path ``real`` is the real folder ``base`` or lies under it."""
    return real == base or real.startswith(base.rstrip(os.sep) + os.sep)


# -- arrays a document names -------------------------------------------------------------


def array_file(
    path: str | os.PathLike[str],
    what: str,
    dtype: Any,
    shape: tuple[int, ...],
    where: str,
    limit: int = DATA_LIMIT,
) -> None:
    """Refuse a ``.npy`` file that does not hold exactly what the document says of it (``where``
    names that field): numbers of ``dtype`` in ``shape``, in C order, the file no longer or
    shorter than that. Read from its header alone: a huge or damaged file costs nothing."""
    import numpy as np

    label = f"{what} {shown(os.fspath(path))}"
    size = check_user_file(path, what, limit)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise UserFileError(f"{label} cannot be read ({exc.strerror})") from None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UserFileError(f"{label} is not a regular file")
        try:
            version = np.lib.format.read_magic(handle)
            if version == (1, 0):
                found = np.lib.format.read_array_header_1_0(handle)
            elif version == (2, 0):
                found = np.lib.format.read_array_header_2_0(handle)
            else:
                raise ValueError(f"format version {version}")
        except (ValueError, OSError, SyntaxError, TypeError, EOFError, TokenError):
            # numpy tokenizes the header as Python: an unclosed bracket is a TokenError
            raise UserFileError(
                f"{label} is not a readable .npy array (its header is damaged or cut)"
            ) from None
        offset = handle.tell()
    shape_found, fortran, kind = found
    if kind.hasobject:
        raise UserFileError(f"{label} holds Python objects, not numbers")
    expected = np.dtype(dtype)
    if kind != expected or tuple(shape_found) != tuple(shape) or (fortran and len(shape) > 1):
        raise UserFileError(
            f"{label} holds {kind} values of shape {tuple(shape_found)}; {where} says "
            f"{expected} values of shape {tuple(shape)}"
        )
    nbytes = expected.itemsize * math.prod(shape)
    if size != offset + nbytes:
        raise UserFileError(
            f"{label} is {size} bytes; {tuple(shape)} {expected} values take {offset + nbytes}"
            " (the file is cut short or has bytes after its array)"
        )


def load_array(
    path: str | os.PathLike[str], what: str, dtype: Any, shape: tuple[int, ...], where: str
) -> Any:
    """The array of a ``.npy`` file a document names, checked as :func:`array_file` says (and
    once more as read: the file may have changed between)."""
    array_file(path, what, dtype, shape, where)
    array = load_user_array(path, what)
    if array.dtype != dtype or array.shape != tuple(shape):
        raise UserFileError(f"{what} {shown(os.fspath(path))} changed while it was read")
    return array


# -- strict JSON, TOML -------------------------------------------------------------------


class NotJsonError(DocumentError):
    """A document that is not JSON; ``line`` and ``reason`` say where and why."""

    def __init__(self, message: str, line: int = 0, reason: str = "") -> None:
        super().__init__(message)
        self.line = line
        self.reason = reason


class RepeatedFieldError(DocumentError):
    """A map of a document that gives the field ``field`` twice."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


class TooDeepError(DocumentError):
    """A document nested deeper than its reader allows."""


def parse_strict_json(text: str, label: str, max_depth: int = MAX_DEPTH) -> Any:
    """``text`` as JSON as its standard has it: a key given twice
    (:class:`RepeatedFieldError`), ``NaN`` or ``Infinity`` (which Python's reader accepts),
    an integer of thousands of digits (:class:`NotJsonError`), and nesting deeper than
    ``max_depth`` (:class:`TooDeepError`) are each refused, naming ``label``."""

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for key, value in items:
            if key in found:
                raise RepeatedFieldError(
                    f"{label}: the field {shown(key, 60)!r} is given twice", key
                )
            found[key] = value
        return found

    def constant(name: str) -> Any:
        reason = f"{name} is not a JSON number"
        raise NotJsonError(f"{label} is not valid JSON ({reason})", 0, reason)

    deep = f"{label} is nested deeper than {max_depth} levels"
    try:
        value = json.loads(text, object_pairs_hook=pairs, parse_constant=constant)
    except json.JSONDecodeError as exc:
        message = f"{label} is not valid JSON (line {exc.lineno}: {exc.msg})"
        raise NotJsonError(message, exc.lineno, exc.msg) from None
    except RecursionError:
        raise TooDeepError(deep) from None
    except DocumentError:
        raise
    except ValueError as exc:  # an integer of more digits than Python converts
        reason = shown(exc, 120)
        raise NotJsonError(f"{label} is not valid JSON ({reason})", 0, reason) from None
    if _depth_over(value, max_depth):
        raise TooDeepError(deep)
    return value


def read_strict_json(
    path: str | os.PathLike[str], what: str, limit: int = TEXT_LIMIT, max_depth: int = MAX_DEPTH
) -> Any:
    """The JSON value of the file ``path`` read as :func:`read_json` reads it, parsed as
    :func:`parse_strict_json` parses it."""
    label = f"{what} {shown(os.fspath(path))}"
    data = read_user_bytes(path, what, limit)
    return parse_strict_json(decode_text(data, label), label, max_depth)


def read_toml(
    path: str | os.PathLike[str], what: str, limit: int = 1 << 20, max_depth: int = MAX_DEPTH
) -> dict[str, Any]:
    """The tables of the TOML file ``path`` (a ``what``), bounded in size and depth; a file
    that is not TOML is a :class:`DocumentError` naming it and the line."""
    import sys

    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10: the same parser, published as tomli
        import importlib

        tomllib: Any = importlib.import_module("tomli")
    label = f"{what} {shown(os.fspath(path))}"
    text = decode_text(read_user_bytes(path, what, limit), label)
    try:
        value = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise DocumentError(f"{label} is not valid TOML ({shown(exc, 200)})") from None
    except RecursionError:
        raise DocumentError(f"{label} is nested deeper than {max_depth} levels") from None
    except ValueError as exc:  # an integer of more digits than Python converts
        raise DocumentError(f"{label} is not usable TOML ({shown(exc, 120)})") from None
    if _depth_over(value, max_depth):
        raise DocumentError(f"{label} is nested deeper than {max_depth} levels")
    return dict(value)


# -- records as data ---------------------------------------------------------------------
# A record the explorer keeps (a frozen dataclass of enums, tuples, frozensets and plain
# values) written as JSON data and read back checked against its type hints, field by
# field: what a file holds is data, never code, and a value of the wrong type is a
# DocumentError naming where it is, never a record that breaks later.


def as_data(value: Any) -> Any:
    """``value`` as JSON data: a dataclass as a map of its fields, an enum as its value,
    a tuple, list or frozenset as a list (a frozenset's items sorted), a map of text keys as
    a map. Anything else (a float that is not finite, an object) is a ``TypeError``."""
    if isinstance(value, enum.Enum):
        return as_data(value.value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: as_data(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise TypeError(f"{value} is not a finite number")
        return value
    if isinstance(value, (tuple, list)):
        return [as_data(item) for item in value]
    if isinstance(value, (frozenset, set)):
        return sorted((as_data(item) for item in value), key=repr)
    if isinstance(value, dict) and all(isinstance(key, str) for key in value):
        return {key: as_data(item) for key, item in value.items()}
    raise TypeError(f"{type(value).__name__} is not a record of data")


def from_data(kind: type[T], value: Any, where: str) -> T:
    """The ``kind`` (a dataclass, an enum, a plain type) ``value`` holds as :func:`as_data`
    wrote it, each field checked against the dataclass's type hints; a
    :class:`DocumentError` names the first field that is not what it must be."""
    hint: Any = kind  # a type is hashable: its reader is built once
    result: T = _reader(hint)(value, where)
    return result


_Reader = Callable[[Any, str], Any]


@functools.cache
def _reader(hint: Any) -> _Reader:
    """How to read a value of the type ``hint`` (built once per type)."""
    plain: dict[Any, _Reader] = {
        int: integer,
        float: number,
        str: text,
        bool: flag,
        type(None): _null,
    }
    if hint in plain:
        return plain[hint]
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return _union(typing.get_args(hint))
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return _enumeration(hint)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _record(hint)
    arguments = typing.get_args(hint)
    if origin is tuple and len(arguments) == 2 and arguments[1] is Ellipsis:
        each = _reader(arguments[0])
        return lambda v, w: tuple(each(item, f"{w}[{i}]") for i, item in enumerate(items(v, w)))
    if origin is tuple and arguments:
        readers = tuple(_reader(a) for a in arguments)
        return lambda v, w: _fixed(readers, v, w)
    if origin in (frozenset, set, list):
        each = _reader(arguments[0]) if arguments else _unreadable(hint)
        made = {frozenset: frozenset, set: set, list: list}[origin]
        return lambda v, w: made(each(item, f"{w}[{i}]") for i, item in enumerate(items(v, w)))
    if origin is dict and arguments and arguments[0] is str:
        each = _reader(arguments[1])
        return lambda v, w: {key: each(item, f"{w}.{key}") for key, item in _map(v, w).items()}
    return _unreadable(hint)


def _unreadable(hint: Any) -> _Reader:
    raise TypeError(f"{hint!r} is not a type a record of data holds")


def _null(value: Any, where: str) -> None:
    if value is not None:
        raise DocumentError(f"{where}: expected null, found {_kind(value)}")


def _map(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise DocumentError(f"{where}: expected a map of fields, found {_kind(value)}")
    return value


def _fixed(readers: tuple[_Reader, ...], value: Any, where: str) -> tuple[Any, ...]:
    found = items(value, where)
    if len(found) != len(readers):
        raise DocumentError(f"{where}: expected {len(readers)} items, found {len(found)}")
    pairs = enumerate(zip(readers, found, strict=True))
    return tuple(read(item, f"{where}[{i}]") for i, (read, item) in pairs)


def _union(alternatives: tuple[Any, ...]) -> _Reader:
    readers = [_reader(a) for a in alternatives]
    names = " or ".join(getattr(a, "__name__", str(a)) for a in alternatives)

    def read(value: Any, where: str) -> Any:
        for reader in readers:
            try:
                return reader(value, where)
            except DocumentError:
                continue
        raise DocumentError(f"{where}: expected {names}, found {_kind(value)}")

    return read


def _enumeration(kind: type[enum.Enum]) -> _Reader:
    members = {member.value: member for member in kind}
    allowed = ", ".join(repr(v) for v in members)

    def read(value: Any, where: str) -> enum.Enum:
        if isinstance(value, (str, int)) and not isinstance(value, bool) and value in members:
            return members[value]
        raise DocumentError(f"{where}: expected one of {allowed}, found {_kind(value)}")

    return read


def _record(kind: type) -> _Reader:
    hints = typing.get_type_hints(kind)
    known = {f.name: f for f in dataclasses.fields(kind) if f.init}
    readers = {name: _reader(hints[name]) for name in known}
    required = {
        name
        for name, f in known.items()
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    }

    def read(value: Any, where: str) -> Any:
        fields_ = _map(value, where)
        for name in fields_:
            if name not in readers:
                raise DocumentError(f"{where}.{shown(name, 60)}: not a field of {kind.__name__}")
        for name in required:
            if name not in fields_:
                raise DocumentError(f"{where}.{name}: missing")
        values = {name: readers[name](item, f"{where}.{name}") for name, item in fields_.items()}
        return kind(**values)

    return read
