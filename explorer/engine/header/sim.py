"""Oclgrind's ``.sim`` files, read into a custom kernel.

A ``.sim`` file names a program file and a kernel, the NDRange and the work-group size (three
numbers each), then one ``<...>`` header per kernel argument in the kernel's order::

    vecadd.cl
    vecadd
    1024 1 1
    16 1 1
    <size=4096 range=0:1:1023 ro>     # a buffer of 1024 ints (the type comes from the kernel)
    <size=4096 fill=1.5 float>
    <size=4096 fill=0 dump wo>        # a result: dumped after the run
    <size=64>                         # a __local pointer: its size in bytes
    <size=4>
    1024                              # a scalar: its values follow the header

Header tokens: a type (char ... double; by default the kernel's own), ``size=BYTES``,
``fill=VALUE``, ``range=START:INC:END``, ``noinit``, ``null``, ``dump``, ``hex``, ``ro``,
``wo``. An argument with no initialiser is followed by its values; ``fill`` and ``range`` fill
a scalar (a vector, a struct's bytes) as they fill a buffer. ``#`` starts a comment; a comment
line ``# ARGS: --build-options OPTIONS`` (how Oclgrind's own test suite passes options such as
``-cl-std=CL2.0``) gives the build options. The program file is found beside the ``.sim``
file, inside its folder: a ``.sim`` file may come from anyone, so an absolute path, ``..`` or
a symbolic link out of its folder is refused. Everything the format says becomes a
declaration of the ``custom`` form, so the run, the trace, the app and sessions treat a
``.sim`` file as any other kernel.

The NDRange is the file's own and is launched exactly: where the work-group size does not
divide it, the last group of a dimension is smaller, as in an OpenCL 2.0 launch with
non-uniform work-groups (``engine/launch/nonuniform.py`` says how, on any device).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from explorer.description.declarations import (
    BufferDecl,
    CustomSpec,
    Declaration,
    LocalDecl,
    ScalarDecl,
)
from explorer.description.elements import ELEMENT_TYPES, element_type
from explorer.documents import DocumentError, inside
from explorer.engine.build_inputs import (
    OPTION_PATTERNS,
    check_option,
    option_defines,
    option_words,
)
from explorer.engine.header.include_lines import includes_outside
from explorer.engine.header.signature import Parameter, SignatureError, kernel_signature
from explorer.engine.records import Variant
from explorer.paths import UserFileError, decode_text, read_user_bytes, read_user_text, shown

_TOKEN = re.compile(r"<[^>\n]*>|<[^\n]*|[^\s<]+")
_TYPE_ORDER = (
    "uchar",
    "ushort",
    "uint",
    "ulong",
    "char",
    "short",
    "int",
    "long",
    "float",
    "double",
)


# size_t: the largest NDRange dimension or size a .sim file may write (the launch is checked
# against the device's limits before anything runs).
_SIZE_T_MAX = 2**64 - 1
# A by-value argument's bytes: OpenCL guarantees 1024 bytes of arguments in all.
_MAX_SCALAR_BYTES = 1024
# A buffer's or a __local argument's bytes: beyond any device (checked against the device's
# memory before anything is allocated).
_MAX_BUFFER_BYTES = 2**48


def _size_field(reader: _Reader, value: str, param: Parameter) -> int:
    """A header's ``size=BYTES``, bounded before anything of that size is made."""
    if not value.isdigit() or len(value) > 20:
        raise reader.fail(f"invalid value for 'size': {shown(value)!r} (a number of bytes)")
    size = int(value)
    if param.space == "scalar" and size > _MAX_SCALAR_BYTES:
        raise reader.fail(
            f"size {size} is too large for an argument passed by value (at most "
            f"{_MAX_SCALAR_BYTES} bytes, what every OpenCL device accepts); use a buffer"
        )
    if size > _MAX_BUFFER_BYTES:
        raise reader.fail(f"size {size} is more than 2^48 bytes, beyond any device")
    return size


class SimError(ValueError):
    """A ``.sim`` file that cannot be read; the message names the file, line and argument."""


@dataclass(frozen=True)
class _Token:
    text: str
    line: int


def _tokens(text: str) -> list[_Token]:
    tokens = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0]
        tokens += [_Token(m.group(0), number) for m in _TOKEN.finditer(line)]
    return tokens


def build_options_of(text: str) -> tuple[str, ...]:
    """The options ``--build-options`` names on the file's ``# ARGS:`` comment lines; the
    other options there steer Oclgrind's own checks and mean nothing to a build."""
    options: list[str] = []
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped.startswith("#"):
            continue
        body = stripped.lstrip("#").strip()
        if not body.startswith("ARGS:"):
            continue
        words = body[len("ARGS:") :].split()
        for i, word in enumerate(words):
            if word == "--build-options" and i + 1 < len(words):
                options += words[i + 1].split()
            elif word.startswith("--build-options="):
                options += word.split("=", 1)[1].split()
    return tuple(options)


# Switches a .sim file may pass besides -D, -I and a header's [options] (build_inputs):
# each changes how the code is compiled, never which files the build reads.
_SIM_SWITCHES = frozenset(
    (
        "-w",
        "-Werror",
        "-g",
        "-cl-opt-disable",
        "-cl-single-precision-constant",
        "-cl-kernel-arg-info",
        "-cl-uniform-work-group-size",
        "-cl-fp32-correctly-rounded-divide-sqrt",
    )
)


def checked_build_options(options: tuple[str, ...], path: Path) -> tuple[str, ...]:
    """A ``.sim`` file's build options as the build gets them: ``-D`` macros, ``-I`` folders
    inside the file's own folder (made absolute: the build does not run there) and switches
    that change only how the code is compiled. A ``.sim`` file may come from anyone: an
    include folder elsewhere, or an option such as ``-include FILE``, would have the compiler
    read (and its errors quote) files outside the folder, and is refused naming it."""
    where = f"{shown(path)}: # ARGS: --build-options"
    checked: list[str] = []
    for word in option_words(options):
        if word.startswith("-D") and len(word) > 2:
            checked.append(word)
        elif word.startswith("-I") and len(word) > 2:
            try:
                folder = inside(path.parent, word[2:], f"{where} -I")
            except DocumentError as exc:
                raise SimError(f"{exc} (an include folder is beside the .sim file)") from None
            if not folder.is_dir():
                raise SimError(f"{where} -I {shown(word[2:])}: no folder {shown(str(folder))}")
            checked.append(f"-I{folder}")
        elif check_option(word) or word in _SIM_SWITCHES:
            checked.append(word)
        else:
            raise SimError(
                f"{where} gives {shown(word)!r}, which the explorer does not pass to a compiler; "
                "it passes -D macros, -I folders beside the file and the switches "
                f"{', '.join(sorted(_SIM_SWITCHES))} and {', '.join(OPTION_PATTERNS)}"
            )
    return tuple(checked)


def load_sim(path: str | Path, allow_outside: bool = False) -> Variant:
    """The kernel a ``.sim`` file describes, with its arguments as custom declarations."""
    path = Path(path)
    try:
        text = read_user_text(path, ".sim file")
    except UserFileError as exc:
        raise SimError(str(exc)) from None
    return parse_sim(text, path, allow_outside)


def program_path(path: str | Path) -> Path | None:
    """The program file a ``.sim`` file names (its first word), inside its folder; None
    where the file cannot be read or names a program outside its folder."""
    path = Path(path)
    try:
        tokens = _tokens(read_user_text(path, ".sim file"))
    except UserFileError:
        return None
    if not tokens:
        return None
    try:
        return _program_inside(path, tokens[0])
    except SimError:
        return None


def program_source(path: str | Path) -> tuple[Path, str, tuple[str, ...]] | None:
    """The program a ``.sim`` file names (inside its folder), its text and the file's checked
    build options, read without parsing the program (nothing it includes is read); None
    where any of them cannot be read."""
    path = Path(path)
    try:
        text = read_user_text(path, ".sim file")
        tokens = _tokens(text)
        if not tokens:
            return None
        program = _program_inside(path, tokens[0])
        source = read_user_text(program, "program file")
        return program, source, checked_build_options(build_options_of(text), path)
    except (UserFileError, SimError):
        return None


def _program_inside(path: Path, token: _Token) -> Path:
    """The program file ``token`` names, found beside the ``.sim`` file as Oclgrind finds
    it, and kept inside that folder: an absolute path, ``..`` or a symbolic link out of the
    folder is refused (a ``.sim`` file from elsewhere names files of its own folder only)."""
    where = f"{shown(path)} line {token.line} (program file)"
    try:
        return inside(path.parent, token.text, where)
    except DocumentError as exc:
        raise SimError(str(exc)) from None


class _Reader:
    def __init__(self, tokens: list[_Token], where: str) -> None:
        self.tokens = tokens
        self.at = 0
        self.where = where
        self.parsing = "program file"

    def fail(self, message: str) -> SimError:
        line = self.tokens[min(self.at, len(self.tokens) - 1)].line if self.tokens else 0
        return SimError(f"{self.where} line {line}: {message} ({self.parsing})")

    def next(self) -> _Token:
        if self.at >= len(self.tokens):
            raise SimError(f"{self.where}: unexpected end of file while reading {self.parsing}")
        token = self.tokens[self.at]
        self.at += 1
        return token

    def integer(self) -> int:
        token = self.next()
        try:
            value = int(token.text)
        except ValueError:
            self.at -= 1
            raise self.fail(f"{shown(token.text)!r} is not a whole number") from None
        if not 0 <= value <= _SIZE_T_MAX:
            self.at -= 1
            raise self.fail(f"{shown(token.text)} is outside 0 to 2^64 - 1 (a size_t)")
        return value


def parse_sim(text: str, path: str | Path, allow_outside: bool = False) -> Variant:
    """Read a ``.sim`` file's text; the program file is found beside it, inside its folder,
    and the files its ``#include`` lines name too, unless the person agrees to others
    (``allow_outside``): the front end that reads the parameters, and the build, would read
    them, a compiler error quoting their lines."""
    path = Path(path)
    reader = _Reader(_tokens(text), str(path))
    program = _program_inside(path, reader.next())
    reader.parsing = "kernel"
    kernel = reader.next().text
    reader.parsing = "NDRange"
    ndrange = [reader.integer() for _ in range(3)]
    reader.parsing = "work-group size"
    wgsize = [reader.integer() for _ in range(3)]
    if any(v < 1 for v in (*ndrange, *wgsize)):
        raise reader.fail("sizes must be at least 1")
    try:
        raw = read_user_bytes(program, "program file")
    except UserFileError as exc:
        raise SimError(f"{shown(path)}: {exc}") from None
    if raw[:2] == b"BC":
        raise SimError(f"{path}: {program.name} is LLVM bitcode; only OpenCL C source runs here")
    try:
        source = decode_text(raw, f"program file {shown(program)}")
    except UserFileError as exc:
        raise SimError(f"{shown(path)}: {exc}") from None
    options = checked_build_options(build_options_of(text), path)
    if not allow_outside:
        _refuse_includes_outside(path, program, source, options)
    try:
        # The arguments are read as the build sees the kernel: `# ARGS: --build-options
        # -DPACKED=1` may choose a parameter's type.
        params = kernel_signature(source, kernel, option_defines(options))
    except SignatureError as exc:
        raise SimError(f"{path}: {program.name}: {exc}") from None
    declarations = tuple(_argument(reader, index, p) for index, p in enumerate(params))
    if reader.at < len(reader.tokens):
        reader.parsing = "end of file"
        raise reader.fail(
            f"unexpected {shown(reader.tokens[reader.at].text)!r} after the last argument"
        )
    dims = max([1] + [i + 1 for i in range(3) if ndrange[i] > 1 or wgsize[i] > 1])
    spec = CustomSpec(sizes=(), params=declarations)
    results = spec.results
    return Variant(
        id=path.stem,
        family="custom",
        name=f"{path.stem} (Oclgrind .sim)",
        kernel=kernel,
        args=tuple(p.name for p in params),
        global_size=tuple(str(v) for v in ndrange[:dims]),
        local_size=tuple(str(v) for v in wgsize[:dims]),
        constraints=(),
        dtype=element_type(results[0].type).base.name if results else "float32",
        layout="row-major",
        defines=(),
        allowed=(),
        source_ref=f"Oclgrind simulation file {path.name}",
        bug="",
        text=f"Runs {kernel} from {program.name} as {path.name} describes it.",
        path=str(path),
        source=source,
        custom=spec,
        build_options=options,
        exact_range=True,
    )


def _refuse_includes_outside(
    path: Path, program: Path, source: str, options: tuple[str, ...]
) -> None:
    folder = Path(os.path.abspath(path)).parent
    try:
        found = includes_outside(folder, program, source, options, "the .sim file's folder")
    except UserFileError as exc:
        raise SimError(f"{shown(path)}: {exc}") from None
    if found:
        more = f" ({len(found) - 1} more such includes)" if len(found) > 1 else ""
        raise SimError(
            f"{shown(path)}: {found[0]}{more}. Files outside the .sim file's folder are not "
            "read unless you agree: give --allow-outside"
        )


def _default_type(param: Parameter) -> str:
    element = param.element_type.replace("unsigned ", "u")
    if element == "void":
        return "uchar"
    for name in _TYPE_ORDER:
        if element.startswith(name):
            return name
    return ""


@dataclass
class _Header:
    """What one argument's ``<...>`` header says."""

    size: int | None = None
    type_name: str = ""
    fill: str = ""
    value_range: str = ""
    dump: bool = False
    hex_values: bool = False
    null: bool = False
    noinit: bool = False
    access: str = "readwrite"


def _read_header(reader: _Reader, param: Parameter) -> _Header:
    """The tokens of the next ``<...>`` header, each checked on its own."""
    token_ = reader.next()
    if not token_.text.startswith("<"):
        reader.at -= 1
        raise reader.fail("expected an argument header <...>")
    if not token_.text.endswith(">"):
        reader.at -= 1
        raise reader.fail("missing '>' at the end of the argument header")
    h = _Header()
    flags = {"dump": "dump", "hex": "hex_values", "null": "null", "noinit": "noinit"}
    for token in token_.text[1:-1].split():
        key, _, value = token.partition("=")
        if token in ELEMENT_TYPES:
            if h.type_name:
                raise reader.fail("argument type given twice")
            h.type_name = token
        elif token in flags:
            setattr(h, flags[token], True)
        elif token in ("ro", "wo"):
            if h.access != "readwrite":
                raise reader.fail("'ro' and 'wo' exclude each other")
            if param.space != "global":
                raise reader.fail(f"'{token}' is only valid for a __global buffer")
            h.access = "read" if token == "ro" else "write"
        elif key == "fill" and value:
            h.fill = value
        elif key == "range" and value:
            h.value_range = value
        elif key == "size":
            h.size = _size_field(reader, value, param)
        else:
            raise reader.fail(f"unrecognised header token {shown(token)!r}")
    return h


def _argument(reader: _Reader, index: int, param: Parameter) -> Declaration:
    reader.parsing = f"argument {index}: {param.name}"
    h = _read_header(reader, param)
    if param.space in ("image", "sampler"):  # before its type, which would not help
        article = "an" if param.space == "image" else "a"
        raise reader.fail(
            f"{article} {param.space} argument cannot be given in a .sim file: the format has none"
        )
    buffer_like = param.space in ("global", "constant")
    if sum(map(bool, (h.fill, h.value_range, h.noinit))) > 1:
        raise reader.fail("more than one initialiser")
    if (h.null or h.noinit or h.dump) and not buffer_like:
        word = "null" if h.null else "noinit" if h.noinit else "dump"
        raise reader.fail(f"'{word}' is only valid for buffer arguments")
    if h.null:
        if h.size is not None or h.fill or h.value_range or h.noinit or h.dump:
            raise reader.fail("'null' takes no other descriptor")
        return BufferDecl(param.name, "uchar", "0", contents="zeros", null=True)
    if h.size is None:
        raise reader.fail("size required")
    if param.space == "local" and not h.type_name:
        # Only its bytes count, as in Oclgrind: `<size=384>` for a `__local Sample *`
        return LocalDecl(param.name, "uchar", str(h.size))
    type_name = h.type_name or _default_type(param)
    if not type_name:
        raise reader.fail(f"no type for {param.element_type!r}: name one (e.g. <size=12 float>)")
    item = ELEMENT_TYPES[type_name].itemsize
    if h.size % item:
        raise reader.fail(f"size {h.size} is not a multiple of {type_name}'s {item} bytes")
    count = h.size // item
    if param.space == "local":
        return LocalDecl(param.name, "uchar", str(h.size))

    dtype = ELEMENT_TYPES[type_name]

    def number(text: str) -> float:
        try:
            if h.hex_values:
                value: float = int(text, 16)
            else:
                value = int(text) if dtype.kind in "iu" else float(text)
        except ValueError:
            raise reader.fail(f"{shown(text)!r} is not a {type_name} value") from None
        low, high = _value_range(dtype, h.hex_values)
        if (isinstance(value, int) or math.isfinite(value)) and not low <= value <= high:
            # Stored, it would wrap or become infinite: a value the file never wrote.
            raise reader.fail(f"{shown(text)} is outside {type_name}'s range {low} to {high}")
        bits = 8 * dtype.itemsize
        if h.hex_values and dtype.kind == "i" and value >= 2 ** (bits - 1):
            value -= 2**bits  # a signed element's bits: ff is a char's -1
        # An integer element's value stays an int: a ulong's or long's beyond float64's 53
        # bits (ffffffffffffffff) would round to one its type cannot hold.
        return value if dtype.kind in "iu" else float(value)

    start, step = _range(reader, h.value_range, count, number)
    if param.space == "scalar":
        if h.fill:
            values = [number(h.fill)] * count
        elif h.value_range:
            values = [start + step * i for i in range(count)]
        else:
            values = [number(reader.next().text) for _ in range(count)]
        return ScalarDecl(
            param.name, _scalar_type(type_name, count, param), tuple(map(str, values))
        )
    if not buffer_like:
        raise reader.fail(f"a {param.space} argument cannot be given in a .sim file here")
    name, n, access, dump = param.name, str(count), h.access, h.dump
    if h.fill:
        value = number(h.fill)
        return BufferDecl(name, type_name, n, "constant", value, access=access, result=dump)
    if h.value_range:
        return BufferDecl(name, type_name, n, "iota", start, step, access=access, result=dump)
    if h.noinit:
        return BufferDecl(name, type_name, n, "noinit", access=access, result=dump)
    data = tuple(number(reader.next().text) for _ in range(count))
    return BufferDecl(name, type_name, n, "data", data=data, access=access, result=dump)


def _value_range(dtype: np.dtype, hex_values: bool) -> tuple[float, float]:
    """The values an element of ``dtype`` holds: a hexadecimal one its bits, as unsigned."""
    if dtype.kind not in "iu":
        largest = float(np.finfo(dtype).max)
        return -largest, largest
    if hex_values:
        return 0, 2 ** (8 * dtype.itemsize) - 1
    return int(np.iinfo(dtype).min), int(np.iinfo(dtype).max)


def _range(
    reader: _Reader, value_range: str, count: int, number: Callable[[str], float]
) -> tuple[float, float]:
    """The start and step of a ``range=START:INC:END`` that fills exactly ``count`` values."""
    if not value_range:
        return 0.0, 0.0
    parts = value_range.split(":")
    if len(parts) != 3:
        raise reader.fail(f"range {shown(value_range)!r} is not START:INC:END")
    start, step, end = (number(part) for part in parts)
    if not all(math.isfinite(v) for v in (start, step, end)):
        raise reader.fail(f"range {shown(value_range)!r} is not made of finite numbers")
    expected = int((end - start) / step) + 1 if step else 0
    if expected != count:
        raise reader.fail(
            f"range {shown(value_range)!r} gives {expected} values; size holds {count}"
        )
    return start, step


def _scalar_type(type_name: str, count: int, param: Parameter) -> str:
    """A by-value argument's type: a vector of ``count`` lanes where the kernel takes one,
    else the base type with ``count`` values (the bytes of a struct)."""
    if count > 1 and param.vector_width == count:
        return f"{type_name}{count}"
    return type_name
