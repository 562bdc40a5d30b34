"""Documents from outside read as untrusted input: capture folders, sessions, ``.sim`` files,
exercise folders, settings and caches.

Each is read one way: its size bounded before a byte is read (:func:`explorer.paths.read_user_bytes`
refuses folders, FIFOs and devices), its nesting bounded, every field checked against what it
must be (a message naming the file, the field and what was expected, never a traceback), and
every path it names kept inside the document's own folder (no absolute path, no ``..`` out,
no symbolic link out). A document that fails any of it is a :class:`DocumentError`.
"""

from __future__ import annotations

import json
import math
import os
import stat
from collections.abc import Callable
from pathlib import Path, PurePosixPath, PureWindowsPath
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
        except (ValueError, OSError, SyntaxError, TypeError, EOFError):
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
