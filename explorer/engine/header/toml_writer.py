"""The one writer of catalog headers: the TOML of a ``/*--- ... ---*/`` comment, from data.

Hand-written rather than ``tomli-w``, on purpose: the header is read by the person in their own
kernel file, and tomli-w lays it out otherwise (every array over several lines, a blank line
before each table, no inline tables) and would also write an integer TOML cannot hold or a
``*/`` that ends the C comment early. This one writes what the readers of headers expect to
see: ``key = value`` lines, short arrays on one line, ``[table]`` and ``[args.NAME]`` headers,
and each value exactly as TOML spells it, escapes included; what it writes, ``tomllib`` reads
back equal (tests/engine/test_toml_writer.py).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

OPEN = "/*---"
CLOSE = "---*/"
_INT64 = 1 << 63
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
# TOML's short escapes; every other control character (and DEL) is written as \\uXXXX.
_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}
_NEEDS_ESCAPE = re.compile(r'["\\\x00-\x1f\x7f]')


def _string(text: str) -> str:
    def escaped(match: re.Match[str]) -> str:
        c = match.group()
        return _ESCAPES.get(c) or f"\\u{ord(c):04X}"

    # "*/" would end the comment the header sits in: its slash is written as an escape.
    return '"' + _NEEDS_ESCAPE.sub(escaped, text).replace("*/", "*\\u002F") + '"'


def key(name: str) -> str:
    """``name`` as a TOML key: bare where it may be, else quoted."""
    return name if _BARE_KEY.fullmatch(name) else _string(name)


def value(v: object) -> str:
    """``v`` as an inline TOML value: a boolean, an integer (64-bit), a float (nan and inf
    too), a string, a list or tuple of values, or a mapping (an inline table)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        if not -_INT64 <= v < _INT64:
            raise ValueError(f"{v} does not fit a TOML integer (64 bits, signed)")
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return _string(v)
    if isinstance(v, Mapping):
        return "{ " + ", ".join(f"{key(str(k))} = {value(x)}" for k, x in v.items()) + " }"
    if isinstance(v, Sequence):
        return "[" + ", ".join(value(x) for x in v) + "]"
    raise TypeError(f"no TOML value for {type(v).__name__} {v!r}")


def _is_table_of_tables(v: object) -> bool:
    return isinstance(v, Mapping) and bool(v) and all(isinstance(x, Mapping) for x in v.values())


def header(fields: Mapping[str, object]) -> str:
    """The catalog header of ``fields``: its plain values first, one ``key = value`` line
    each; then each mapping as a ``[table]`` (a mapping in it is an inline table), and a
    mapping of mappings (``args``) as one ``[args.NAME]`` table per entry. Ends with a
    newline, ready to put at the top of a kernel file."""
    lines = [OPEN]
    tables = {name: v for name, v in fields.items() if isinstance(v, Mapping)}
    lines += [f"{key(name)} = {value(v)}" for name, v in fields.items() if name not in tables]
    for name, table in tables.items():
        assert isinstance(table, Mapping)
        if _is_table_of_tables(table):
            for inner, entries in table.items():
                lines.append(f"[{key(name)}.{key(str(inner))}]")
                lines += [f"{key(str(k))} = {value(x)}" for k, x in entries.items()]
        else:
            lines.append(f"[{key(name)}]")
            lines += [f"{key(str(k))} = {value(x)}" for k, x in table.items()]
    lines.append(CLOSE)
    return "\n".join(lines) + "\n"
