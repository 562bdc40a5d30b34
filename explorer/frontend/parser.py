"""One parse of an OpenCL C source: functions, memory accesses, barriers and fences.

clang does the preprocessing (the build's own defines, so only the live `#if` branch is
seen and macros are expanded exactly as the device compiler expands them) and the typing
(address spaces, typedefs, struct members, vector components). This module walks clang's
tree once and decides, for every expression that touches memory, what it does to it.
Nothing it cannot describe is dropped: it becomes an `Unclassified` entry.
"""

from __future__ import annotations

import bisect
import io
import itertools
import re
from dataclasses import dataclass, replace
from typing import Any

import clang.cindex as ci  # type: ignore[import-untyped]  # the wheel ships no type information

from explorer.frontend import clang_bridge, disk_cache
from explorer.frontend.model import (
    AccessKind,
    AccessSite,
    AddressSpace,
    Call,
    Diagnostic,
    Function,
    ImageCall,
    Parameter,
    ParsedSource,
    ParseError,
    Prototype,
    ResultUse,
    Return,
    ReturnedCopy,
    Span,
    SyncKind,
    SyncSite,
    Unclassified,
    Variable,
    unread_bytes,
)

K = ci.CursorKind
T = ci.TypeKind
ARRAY_KINDS = {T.CONSTANTARRAY, T.INCOMPLETEARRAY, T.VARIABLEARRAY, T.DEPENDENTSIZEDARRAY}
VECTOR_KINDS = {T.VECTOR, T.EXTVECTOR}
INTEGER_KINDS = {
    T.BOOL, T.CHAR_U, T.UCHAR, T.USHORT, T.UINT, T.ULONG, T.ULONGLONG,
    T.CHAR_S, T.SCHAR, T.SHORT, T.INT, T.LONG, T.LONGLONG, T.ENUM,
}  # fmt: skip
SPACE_WORDS = {
    "__global": AddressSpace.GLOBAL,
    "global": AddressSpace.GLOBAL,
    "__local": AddressSpace.LOCAL,
    "local": AddressSpace.LOCAL,
    "__constant": AddressSpace.CONSTANT,
    "constant": AddressSpace.CONSTANT,
}
QUALIFIER_WORDS = {"const", "volatile", "restrict", "__private", "private", *SPACE_WORDS}
SYNC_CALLS = {k.value: k for k in SyncKind}
FENCE_LOCAL = 0x01
FENCE_GLOBAL = 0x02
VLOAD = re.compile(r"^vload(a?_half)?(\d*)$")
VSTORE = re.compile(r"^vstore(a?_half)?(\d*)(_\w+)?$")
ASYNC_COPIES = {"async_work_group_copy", "async_work_group_strided_copy"}
# Maths built-ins that store a second result through their last argument, a pointer
# (OpenCL C 1.2, 6.12.2): the store is a write like any other.
STORES_THROUGH_LAST = {"sincos", "fract", "modf", "frexp", "remquo", "lgamma_r"}
IMAGE_CALL = re.compile(r"^(read|write)_image")

READ, WRITE, RMW, ADDRESS = "read", "write", "rmw", "address"
ARITHMETIC = {"+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"}
MODE_KIND = {READ: AccessKind.READ, WRITE: AccessKind.WRITE, RMW: AccessKind.READ_MODIFY_WRITE}


def language_standard(options: tuple[str, ...] | list[str]) -> str:
    """The OpenCL C standard build options ask for (``-cl-std=CL2.0``), as the front end
    names it; CL1.2, the compilers' default, when they name none. The last one given wins."""
    chosen = "CL1.2"
    for option in options:
        if option.startswith("-cl-std="):
            chosen = option.split("=", 1)[1]
    return chosen


def parse(
    source: str,
    defines: dict[str, int | str],
    filename: str,
    *,
    cl_std: str = "CL1.2",
    strict: bool = True,
    include_dirs: tuple[str, ...] = (),
) -> ParsedSource:
    """Parse `source` (the contents of `filename`) built with `-D` `defines`.

    Raises ParseError with the compiler's messages, at the user's lines, when the source is
    not valid OpenCL C for these defines. With `strict` off, what clang could still read is
    returned (a dialog can list kernels and parameters of a file whose defines it lacks).
    `include_dirs` are the folders `#include "..."` searches; what the included files define
    is known, but only `filename`'s own functions are read.
    """
    if include_dirs:  # the headers are read by the parse, not named by a key: no cache
        return _parse(source, defines, filename, cl_std, strict, include_dirs)
    key = disk_cache.digest(
        disk_cache.code_version("frontend"),
        source,
        repr(sorted(defines.items())),
        filename,
        cl_std,
        repr(strict),
    )
    kept = disk_cache.load(_CACHE_FOLDER, key, ParsedSource)
    if kept is None:
        kept = _parse(source, defines, filename, cl_std, strict, include_dirs)
        disk_cache.store(_CACHE_FOLDER, key, kept)
    return kept


_CACHE_FOLDER = "parsed"  # a parse is the same for the same source, defines and options


def _parse(
    source: str,
    defines: dict[str, int | str],
    filename: str,
    cl_std: str,
    strict: bool,
    include_dirs: tuple[str, ...],
) -> ParsedSource:
    unit = clang_bridge.parse_unit(source, filename, defines, cl_std, include_dirs)
    positions = _Positions(source)
    errors: list[Diagnostic] = []
    warnings: list[Diagnostic] = []
    for d in unit.diagnostics:
        line = d.location.line if d.location.file and d.location.file.name == filename else 0
        record = Diagnostic(line, d.location.column, _SEVERITY.get(d.severity, "note"), d.spelling)
        if d.severity >= ci.Diagnostic.Error:
            errors.append(record)
        elif d.severity == ci.Diagnostic.Warning:
            warnings.append(record)
    lines = line_map(source) if LINE_DIRECTIVE.search(source) else ()
    if errors and strict:
        if lines:
            errors = [
                replace(e, line=lines[e.line - 1] if 0 < e.line <= len(lines) else e.line)
                for e in errors
            ]
        raise ParseError(filename, tuple(errors))
    # One pass over the unit's top level (it holds every declaration of the OpenCL prelude
    # too, each visited through a callback): the file's own macro uses and functions.
    own: list[Any] = []
    for c in unit.cursor.get_children():
        if c.kind in (K.MACRO_INSTANTIATION, K.FUNCTION_DECL, K.VAR_DECL):
            where = c.location.file
            if where and where.name == filename:
                own.append(c)
    macros = [
        _Macro(
            positions.char(c.extent.start.offset),
            positions.char(c.extent.end.offset),
            c.spelling,
            _ours(c),
        )
        for c in own
        if c.kind == K.MACRO_INSTANTIATION
    ]
    walker = _Walker(source, filename, positions, macros)
    walker.own_functions = {c.spelling for c in own if c.kind == K.FUNCTION_DECL}
    functions = []
    prototypes = []
    for c in own:
        if c.kind != K.FUNCTION_DECL:
            continue
        name_at = positions.char(c.location.offset)
        close, empty = _params_close(source, name_at)
        # A macro wrote the name or the parameter list: `(` found after it is not the list's.
        by = next(
            (
                m.name
                for m in macros
                if not m.prelude and (m.start <= name_at < m.end or m.start <= close < m.end)
            ),
            None,
        )
        if not c.is_definition():
            prototypes.append(Prototype(c.spelling, c.location.line, close, empty, by))
            continue
        function = walker.function(c)
        functions.append(replace(function, params_close=close, params_empty=empty, macro=by))
    parsed = ParsedSource(
        filename=filename,
        source=source,
        functions=tuple(functions),
        accesses=tuple(sorted(walker.accesses, key=lambda a: (a.span.start, a.span.end))),
        syncs=tuple(walker.syncs),
        unclassified=tuple(walker.unclassified),
        warnings=tuple(warnings),
        prototypes=tuple(prototypes),
        variables=(*_program_scope(own, positions), *walker.variables),
        calls=tuple(walker.calls),
        returns=tuple(walker.returns),
        images=tuple(walker.images),
        local_address_arithmetic=tuple(walker.local_address_arithmetic),
        returned_copies=tuple(walker.returned_copies),
        result_uses=tuple(walker.result_uses),
    )
    return _at_user_lines(parsed, lines) if lines else parsed


OPENCL_PREDEFINED = {
    "__OPENCL_VERSION__": "120",
    "__OPENCL_C_VERSION__": "120",
    "CL_VERSION_1_0": "100",
    "CL_VERSION_1_1": "110",
    "CL_VERSION_1_2": "120",
    "__ENDIAN_LITTLE__": "1",
    "__kernel_exec(X, typen)": "__kernel __attribute__((work_group_size_hint(X, 1, 1)))",
}
LINE_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*line[ \t]+(\d+)", re.M)


def expand(
    source: str,
    defines: dict[str, int | str],
    filename: str,
    include_dirs: tuple[str, ...] = (),
) -> str:
    """`source` with every macro expanded and every `#if` decided for `defines`.

    `#line` directives keep each line at the user's line number, so a compiler reading the
    result reports the user's lines. Names the device compiler defines itself
    (`CLK_LOCAL_MEM_FENCE`, `FLT_MAX`) are left as they are written. An `#include` found in
    `include_dirs` is read (its macros count) but stays a directive: its text is not the
    user's file, and the compiler reads it again.
    """
    import pcpp  # type: ignore[import-untyped]  # the package ships no type information

    pre = pcpp.Preprocessor()
    pre.line_directive = "#line"
    pre.compress = 0
    pre.passthru_includes = re.compile(".*")
    for folder in include_dirs:
        pre.add_path(folder)
    for name, value in {**OPENCL_PREDEFINED, **{k: str(v) for k, v in defines.items()}}.items():
        pre.define(f"{name} {value}")
    pre.parse(source, filename)
    out = io.StringIO()
    pre.write(out)
    if pre.return_code:
        raise ParseError(filename, (Diagnostic(0, 0, "error", "the preprocessor failed"),))
    expanded = out.getvalue()
    if not LINE_DIRECTIVE.search(source):
        return expanded
    # pcpp passes the user's own `#line N` on but numbers its markers by the file's physical
    # lines: each marker of this file is given the line the user's directives make it.
    user = line_map(source)
    marker = re.compile(r'^#line (\d+) "' + re.escape(filename) + r'"$', re.M)

    def presumed(m: re.Match[str]) -> str:
        at = int(m.group(1))
        line = user[at - 1] if 0 < at <= len(user) else at
        return f'#line {line} "{filename}"'

    return marker.sub(presumed, expanded)


def line_map(expanded: str) -> tuple[int, ...]:
    """The user's line of each line of an expanded source (index 0 is line 1)."""
    lines: list[int] = []
    current = 1
    for text in expanded.split("\n"):
        match = LINE_DIRECTIVE.match(text)
        if match:
            lines.append(current)
            current = int(match.group(1))
            continue
        lines.append(current)
        current += 1
    return tuple(lines)


def parse_expanded(
    source: str,
    defines: dict[str, int | str],
    filename: str,
    *,
    cl_std: str = "CL1.2",
    include_dirs: tuple[str, ...] = (),
) -> ParsedSource:
    """Parse `source` after expanding its macros: every access a macro writes gets a span of
    its own. Spans are offsets into the expanded text (`ParsedSource.source`); every `line`
    is the user's own line, through `ParsedSource.line_map`."""
    expanded = expand(source, defines, filename, include_dirs)
    return parse(expanded, {}, filename, cl_std=cl_std, include_dirs=include_dirs)


def _at_user_lines(parsed: ParsedSource, lines: tuple[int, ...]) -> ParsedSource:
    """`parsed` with every line read through the source's own `#line` directives."""

    def user(line: int) -> int:
        return lines[line - 1] if 0 < line <= len(lines) else line

    return replace(
        parsed,
        functions=tuple(replace(f, line=user(f.line)) for f in parsed.functions),
        accesses=tuple(replace(a, line=user(a.line)) for a in parsed.accesses),
        syncs=tuple(replace(x, line=user(x.line)) for x in parsed.syncs),
        unclassified=tuple(replace(u, line=user(u.line)) for u in parsed.unclassified),
        warnings=tuple(replace(w, line=user(w.line)) for w in parsed.warnings),
        prototypes=tuple(replace(p, line=user(p.line)) for p in parsed.prototypes),
        variables=tuple(replace(v, line=user(v.line)) for v in parsed.variables),
        calls=tuple(replace(c, line=user(c.line)) for c in parsed.calls),
        returns=tuple(replace(r, line=user(r.line)) for r in parsed.returns),
        images=tuple(replace(i, line=user(i.line)) for i in parsed.images),
        local_address_arithmetic=tuple(user(n) for n in parsed.local_address_arithmetic),
        line_map=lines,
    )


def _params_close(source: str, name_at: int) -> tuple[int, bool]:
    """The offset of the `)` closing the parameter list after a function's name, and whether
    the list is empty (`()` or `(void)`); (-1, False) when it cannot be found."""
    opening = source.find("(", name_at)
    if opening < 0:
        return -1, False
    depth = 0
    for at in range(opening, len(source)):
        ch = source[at]
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                inside = source[opening + 1 : at].strip()
                return at, inside in ("", "void")
    return -1, False


_SEVERITY = {
    ci.Diagnostic.Note: "note",
    ci.Diagnostic.Warning: "warning",
    ci.Diagnostic.Error: "error",
    ci.Diagnostic.Fatal: "fatal",
}


class _Positions:
    """clang counts bytes; Python strings count characters: convert, and find lines."""

    def __init__(self, source: str) -> None:
        self.source = source
        encoded = source.encode("utf-8")
        self.ascii = len(encoded) == len(source)
        self.wide_bytes: list[int] = []
        self.extra: list[int] = []
        if not self.ascii:
            extra = 0
            for index, ch in enumerate(source):
                if ord(ch) > 0x7F:
                    extra += len(ch.encode("utf-8")) - 1
                    self.wide_bytes.append(index + extra)
                    self.extra.append(extra)
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", source)]

    def char(self, byte_offset: int) -> int:
        if self.ascii:
            return byte_offset
        before = bisect.bisect_left(self.wide_bytes, byte_offset)
        return byte_offset - (self.extra[before - 1] if before else 0)

    def line_column(self, offset: int) -> tuple[int, int]:
        lo, hi = 0, len(self.line_starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.line_starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1, offset - self.line_starts[lo] + 1

    def span(self, start: int, end: int) -> Span:
        line, column = self.line_column(start)
        end_line, end_column = self.line_column(end)
        return Span(start, end, line, column, end_line, end_column)


@dataclass(frozen=True)
class _Macro:
    start: int
    end: int
    name: str
    # One of the prelude's (`as_float(x)`): each argument appears once in its expansion,
    # so an access written in an argument keeps its own text.
    prelude: bool = False


def _ours(macro_use: Any) -> bool:
    """Whether a macro use names a macro of our prelude."""
    definition = macro_use.referenced
    where = definition.location.file if definition is not None else None
    return bool(where is not None and where.name == clang_bridge.PRELUDE_NAME)


@dataclass(frozen=True)
class _Origin:
    """Where an address comes from: the name written, whether computed, the root buffers."""

    base: str
    derived: bool
    roots: tuple[str, ...]


@dataclass(frozen=True)
class _Lvalue:
    """An expression that designates memory: the node, its pointer and index sub-expressions."""

    node: Any
    pointer: Any
    indices: tuple[Any, ...]
    variable: str | None = None
    components: str | None = None
    width: int = 0  # the components of the vector the first selection selects from


class _Node:
    """A clang cursor with its children fetched once (each fetch is a callback round trip)."""

    __slots__ = ("cursor", "kids", "kind")

    def __init__(self, cursor: Any) -> None:
        self.cursor = cursor
        self.kind = cursor.kind
        self.kids = [_Node(k) for k in cursor.get_children()]

    def __getattr__(self, name: str) -> Any:
        return getattr(self.cursor, name)

    def get_arguments(self) -> list[Any]:
        count = len(list(self.cursor.get_arguments()))
        return self.kids[len(self.kids) - count :] if count else []

    def walk(self) -> Any:
        yield self
        for k in self.kids:
            yield from k.walk()


def _raw(c: Any) -> Any:
    """The clang cursor itself, for calls into the library."""
    return c.cursor if isinstance(c, _Node) else c


def _constant_int(c: Any) -> int | None:
    """The value of an integer constant expression under ``c``, looking through the casts
    and parentheses around it (a sampler's flags are an ``int`` cast to ``sampler_t``)."""
    node = c
    for _ in range(8):
        value = clang_bridge.evaluate_int(_raw(node))
        if value is not None:
            return value
        kids = _children(node)
        if len(kids) != 1 or node.kind not in (
            K.UNEXPOSED_EXPR, K.PAREN_EXPR, K.CSTYLE_CAST_EXPR, K.INTEGER_LITERAL,
        ):  # fmt: skip
            return None
        node = kids[0]
    return None


def _children(c: Any) -> list[Any]:
    return c.kids if isinstance(c, _Node) else list(c.get_children())


def _canonical_kind(t: Any) -> Any:
    return t.get_canonical().kind


def padding(t: Any) -> tuple[tuple[int, int], ...]:
    """The bytes of a value of type ``t`` that no member of a struct in it covers (the
    compiler's padding: `struct { float4 p; int id; }` leaves bytes 20-31), as [start, end)
    ranges; empty for a type that is no struct, or a struct without any."""
    canonical = t.get_canonical()
    if canonical.kind != T.RECORD:
        return ()
    size = int(canonical.get_size())
    if size <= 0:
        return ()
    covered = bytearray(size)
    if not _cover(canonical, 0, covered):
        return ()  # a member whose place is not known: claim nothing
    holes: list[tuple[int, int]] = []
    for at, taken in enumerate(covered):
        if taken:
            continue
        if holes and holes[-1][1] == at:
            holes[-1] = (holes[-1][0], at + 1)
        else:
            holes.append((at, at + 1))
    return tuple(holes)


def _cover(t: Any, base: int, covered: bytearray) -> bool:
    """Mark in ``covered`` the bytes the members of ``t`` take, placed at ``base``; False where
    a member's offset or size is not known."""
    canonical = t.get_canonical()
    size = int(canonical.get_size())
    if size <= 0 or base + size > len(covered):
        return False
    if canonical.kind == T.RECORD:
        for field in canonical.get_fields():
            bits = int(field.get_field_offsetof())
            if bits < 0:
                return False
            if field.is_bitfield():
                first, last = base + bits // 8, base + (bits + field.get_bitfield_width() + 7) // 8
                covered[first:last] = b"\x01" * (last - first)
            elif not _cover(field.type, base + bits // 8, covered):
                return False
        return True
    if canonical.kind == T.CONSTANTARRAY and padding(canonical.element_type):
        step = int(canonical.element_type.get_canonical().get_size())
        return all(
            _cover(canonical.element_type, base + i * step, covered)
            for i in range(int(canonical.element_count))
        )
    covered[base : base + size] = b"\x01" * size
    return True


def _copyable(t: Any) -> bool:
    """A private struct (not a union) a whole struct can be copied into."""
    canonical = t.get_canonical()
    return bool(
        canonical.kind == T.RECORD
        and canonical.get_declaration().kind == K.STRUCT_DECL
        and _space(t.spelling) is AddressSpace.PRIVATE
        and int(canonical.get_size()) > 0
    )


def _stripped(c: Any) -> Any:
    """``c`` without the parentheses and implicit conversions around it."""
    while c.kind in (K.PAREN_EXPR, K.UNEXPOSED_EXPR) and len(_children(c)) == 1:
        c = _children(c)[0]
    return c


# Where an expression stands as a statement of its own, its value unused: a struct cannot be
# a condition, so an assignment of one directly under a loop or an `if` is its body.
_STATEMENT_PLACES = frozenset(
    (
        K.COMPOUND_STMT,
        K.FOR_STMT,
        K.WHILE_STMT,
        K.DO_STMT,
        K.IF_STMT,
        K.LABEL_STMT,
        K.CASE_STMT,
        K.DEFAULT_STMT,
    )
)


def _with_parents(node: Any, parent: Any = None) -> Any:
    """(parent, node) for ``node`` and everything under it."""
    yield parent, node
    for k in _children(node):
        yield from _with_parents(k, node)


def _member_places(t: Any) -> tuple[tuple[str, int, int], ...]:
    """Each named member of struct ``t``: (name, its first byte, the byte after its last);
    none where a member's place is not known."""
    places = []
    for field in t.get_canonical().get_fields():
        bits = int(field.get_field_offsetof())
        size = int(field.type.get_canonical().get_size())
        if bits < 0 or size <= 0 or field.is_bitfield():
            return ()
        if field.spelling:
            places.append((str(field.spelling), bits // 8, bits // 8 + size))
    return tuple(places)


def _is_pointerish(t: Any) -> bool:
    kind = _canonical_kind(t)
    return bool(kind == T.POINTER or kind in ARRAY_KINDS)


def _program_scope(own: list[Any], positions: _Positions) -> list[Variable]:
    """The `__global` and `__constant` arrays and scalars the file declares outside every
    function (OpenCL C 2.0 program-scope variables; `__constant` ones in 1.2 too), with an
    empty `function`. Pointers among them are not memory of their own."""
    found = []
    for c in own:
        if c.kind != K.VAR_DECL or _canonical_kind(c.type) == T.POINTER:
            continue
        if "sampler_t" in c.type.get_canonical().spelling:
            continue  # a sampler is no memory the kernel reads
        space = _space(c.type.spelling)
        if space not in (AddressSpace.GLOBAL, AddressSpace.CONSTANT):
            continue
        shape: list[int] = []
        t = c.type.get_canonical()
        while t.kind in ARRAY_KINDS:
            try:
                shape.append(max(int(t.element_count), 0))
            except Exception:  # `int a[];` where the 1.2 parse rejected its initialiser
                break
            t = t.element_type.get_canonical()
        if t.kind in ARRAY_KINDS:
            continue
        end = positions.char(c.extent.end.offset)
        found.append(
            Variable(
                name=str(c.spelling),
                function="",
                line=positions.line_column(end)[0],
                address_space=space,
                shape=tuple(shape),
                element_size=max(int(t.get_size()), 0),
                decl_end=end,
                element_type=_type_name(t),
            )
        )
    return found


def _has_initialiser(declarator: str) -> bool:
    """Whether one declarator's text (``float a[N] = {0}``, ``acc_t s = t``) gives its
    variable a value: an ``=`` outside brackets and parentheses."""
    depth = 0
    for i, ch in enumerate(declarator):
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "=" and depth == 0:
            before = declarator[i - 1] if i else ""
            after = declarator[i + 1] if i + 1 < len(declarator) else ""
            if before not in "=!<>" and after != "=":
                return True
    return False


def _space(type_spelling: str) -> AddressSpace:
    for word in re.findall(r"[A-Za-z_]+", type_spelling):
        if word in SPACE_WORDS:
            return SPACE_WORDS[word]
    return AddressSpace.PRIVATE


def _own_space(type_spelling: str) -> AddressSpace:
    """The address space of a variable of this type itself: an array of pointers to
    ``__local`` (``__local float *bufs[2]``) is private, the space before its ``*`` is where
    its elements point."""
    return _space(type_spelling.rsplit("*", 1)[-1])


def _type_name(t: Any) -> str:
    """A readable element type: `float`, `float4`, `cell_t`, `int` for `index_t`."""
    canonical = t.get_canonical()
    if canonical.kind in VECTOR_KINDS:
        return f"{_type_name(canonical.element_type)}{canonical.element_count}"
    spelling = canonical.spelling if "unnamed" not in canonical.spelling else t.spelling
    words = [w for w in spelling.replace("*", " * ").split() if w not in QUALIFIER_WORDS]
    return " ".join(words)


def _strip(c: Any) -> Any:
    """Skip parentheses and implicit conversions (same extent, one child)."""
    while c.kind in (K.PAREN_EXPR, K.UNEXPOSED_EXPR):
        kids = _children(c)
        if len(kids) != 1 or (c.kind == K.UNEXPOSED_EXPR and _is_vector_select(c, kids[0])):
            return c
        c = kids[0]
    return c


def _from_integer(c: Any) -> bool:
    """Whether the address `c` stands for is an integer's value: the integer itself (its
    conversion into a pointer implicit) or an explicit cast of one."""
    c = _strip(c)
    if c.kind == K.CSTYLE_CAST_EXPR:
        kids = _children(c)
        return bool(kids) and _is_integer(kids[-1].type)
    return _is_integer(c.type)


def _points_outside_private(c: Any) -> bool:
    """Whether `c` is a pointer into memory the trace records by address (global, local,
    constant); a private pointer's accesses are recorded only through a known array."""
    canonical = c.type.get_canonical()
    if canonical.kind != T.POINTER:
        return False
    return _space(canonical.get_pointee().spelling) is not AddressSpace.PRIVATE


def _local_place(c: Any) -> str | None:
    """The ``__local`` variable whose address ``c`` is, at a constant place in it (``&s``,
    ``&s.first``, ``tile``, ``&tile[0]``, cast to a pointer or an integer); None for any
    other value."""
    c = _strip(c)
    kids = _children(c)
    if c.kind in (K.CSTYLE_CAST_EXPR, K.UNEXPOSED_EXPR) and kids:
        return _local_place(kids[-1])
    if c.kind == K.UNARY_OPERATOR and kids and clang_bridge.unary_operator(_raw(c)) == "&":
        return _local_variable(kids[0])
    if c.kind == K.DECL_REF_EXPR and _canonical_kind(c.type) in ARRAY_KINDS:
        return _local_variable(c)
    return None


def _parameter_member_array(c: Any) -> str | None:
    """The name (``s->v``, ``s->inner.v``) of an array member of the private struct a
    helper's pointer parameter points to, as ``_member_arrays`` registers it; None for any
    other value."""
    if c.kind != K.MEMBER_REF_EXPR or _canonical_kind(c.type) not in ARRAY_KINDS:
        return None
    fields: list[str] = []
    node = c
    while node.kind == K.MEMBER_REF_EXPR:
        kids = _children(node)
        if not kids:
            return None
        fields.insert(0, str(node.spelling))
        inner = _strip(kids[0])
        if _canonical_kind(kids[0].type) == T.POINTER:
            ref = inner.referenced if inner.kind == K.DECL_REF_EXPR else None
            if ref is None or ref.kind != K.PARM_DECL:
                return None
            pointee = ref.type.get_canonical().get_pointee()
            if _space(pointee.spelling) is not AddressSpace.PRIVATE:
                return None
            return f"{inner.spelling}->" + ".".join(fields)
        if _canonical_kind(kids[0].type) != T.RECORD:
            return None
        node = inner
    return None


def _local_variable(c: Any) -> str | None:
    """The ``__local`` variable a place at constant offsets is in (``s``, ``s.first``,
    ``tile[0][1]``), or None."""
    c = _strip(c)
    kids = _children(c)
    if c.kind == K.MEMBER_REF_EXPR and kids and _canonical_kind(kids[0].type) != T.POINTER:
        return _local_variable(kids[0])
    if c.kind == K.ARRAY_SUBSCRIPT_EXPR and len(kids) == 2:
        if _canonical_kind(_strip(kids[0]).type) not in ARRAY_KINDS:
            return None
        return _local_variable(kids[0]) if _constant_int(kids[1]) is not None else None
    if c.kind != K.DECL_REF_EXPR:
        return None
    ref = c.referenced
    if ref is None or ref.kind != K.VAR_DECL or _canonical_kind(ref.type) == T.POINTER:
        return None
    return str(c.spelling) if _own_space(ref.type.spelling) is AddressSpace.LOCAL else None


def _string_literal(c: Any) -> bool:
    """Whether ``c`` is a string literal (``__builtin_nanf("")``, which the ``NAN`` macro
    is): a constant the compiler reads, no memory the kernel touches."""
    return bool(_strip(c).kind == K.STRING_LITERAL)


def _is_integer(t: Any) -> bool:
    return bool(_canonical_kind(t) in INTEGER_KINDS)


def _is_vector_select(c: Any, child: Any) -> bool:
    """An `.x`/`.s0`/`.lo`/swizzle selection (clang exposes it only as an unexposed node)."""
    if _canonical_kind(child.type) not in VECTOR_KINDS:
        return False
    if c.extent.end.offset != child.extent.end.offset:
        return True
    node = c.type.get_canonical()
    inner = child.type.get_canonical()
    if node.kind not in VECTOR_KINDS:
        return True
    return bool(node.element_count != inner.element_count)


_KERNEL_WORDS = frozenset({"__kernel", "kernel"})


class _Walker:
    """Walks function bodies, collecting sites; one instance per parse."""

    def __init__(
        self, source: str, filename: str, positions: _Positions, macros: list[_Macro]
    ) -> None:
        self.source = source
        self.filename = filename
        self.positions = positions
        self.macros = macros
        self.accesses: list[AccessSite] = []
        self.syncs: list[SyncSite] = []
        self.unclassified: list[Unclassified] = []
        self.function_name = ""
        self.assignments: dict[str, list[Any]] = {}
        self.variables: list[Variable] = []
        self.calls: list[Call] = []
        self.returns: list[Return] = []
        self.images: list[ImageCall] = []
        self.own_functions: set[str] = set()
        # A helper's ``return loc[i];`` of a whole struct, and what each call of a helper
        # reads of the struct it returns: judged per traced kernel (ParsedSource.for_kernel).
        self.returned_copies: list[ReturnedCopy] = []
        self.result_uses: list[ResultUse] = []
        self.local_address_arithmetic: list[int] = []

    def function(self, c: Any) -> Function:
        self.function_name = c.spelling
        params = tuple(self._parameter(p) for p in c.get_arguments())
        body = next((_Node(k) for k in c.get_children() if k.kind == K.COMPOUND_STMT), None)
        self.assignments = {}
        if body is not None:
            opened = self.positions.char(body.extent.start.offset) + 1
            for p in c.get_arguments():  # a struct passed by value is the function's own copy
                line = self.positions.line_column(self.positions.char(p.extent.start.offset))
                if _canonical_kind(p.type) == T.RECORD:
                    self._member_arrays(
                        p.spelling, p.type.get_canonical(), line[0], opened, given=True
                    )
                pointee = p.type.get_canonical().get_pointee()
                if (
                    _canonical_kind(p.type) == T.POINTER
                    and pointee.kind == T.RECORD
                    and _space(pointee.spelling) is AddressSpace.PRIVATE
                ):  # the caller's struct: its array members bounds-checked as they are
                    self._member_arrays(f"{p.spelling}->", pointee, line[0], opened, given=True)
            self._collect_assignments(body)
            first = len(self.accesses)
            self.visit(body, READ)
            self._copies_used_in_part(body, first)
        body_span = self._span(body.cursor if body is not None else c)[0]
        return Function(
            name=c.spelling,
            line=c.location.line,
            is_kernel=self._is_kernel(c),
            parameters=params,
            body=body_span,
        )

    def _is_kernel(self, c: Any) -> bool:
        """Whether the function is declared ``__kernel``: written before its name, or
        written by a macro (``#define KERNEL __kernel``, a macro that writes the whole
        declaration, ``scale_##NAME``, in this file or an included one), or by a ``-D``."""
        unit = c.translation_unit
        prefix = ci.SourceRange.from_locations(c.extent.start, c.location)
        if {t.spelling for t in unit.get_tokens(extent=prefix)} & _KERNEL_WORDS:
            return True
        for attribute in c.get_children():
            if attribute.kind != K.UNEXPOSED_ATTR:
                continue
            # The qualifier is an attribute that starts at its token; the token is read
            # where it is spelled (a range of one place: clang reads its spelling).
            start = attribute.extent.start
            first = next(
                iter(unit.get_tokens(extent=ci.SourceRange.from_locations(start, start))), None
            )
            if first is not None and first.spelling in _KERNEL_WORDS:
                return True
        return False

    def _copies_used_in_part(self, body: Any, first: int) -> None:
        """Mark the struct reads (sites from ``first``) that copy a whole struct into a
        private variable with the bytes of the members the function never reads from that
        variable (``AccessSite.unused``). A member counts as read wherever ``q.member`` is
        written (a write too: nothing is claimed that a later read might need); the variable
        named in any other way (``f(q)``, ``r = q``, ``&q``, ``sizeof q``) counts as read
        whole. Unions are read whole. An assignment whose value is used (``r = q = loc[i];``,
        ``(q = loc[i]).pad``) hands the whole copy on: its variable counts as read whole."""
        copies: list[tuple[Any, Any]] = []  # (the variable's declaration, the struct read)
        targets: set[int] = set()  # the variable as an assignment's target: no read of it
        struct_calls: list[tuple[Any, Any]] = []  # (parent, call) of own struct-returning calls
        returns: list[Any] = []
        for parent, node in _with_parents(body):
            kids = _children(node)
            if node.kind == K.RETURN_STMT:
                returns.append(node)
            elif self._own_struct_call(node):
                struct_calls.append((parent, node))
            elif node.kind == K.VAR_DECL and kids and _copyable(node.type):
                copies.append((node, _stripped(kids[-1])))
            elif (
                node.kind == K.BINARY_OPERATOR
                and len(kids) == 2
                and kids[0].kind == K.DECL_REF_EXPR
                and clang_bridge.binary_operator(_raw(node)) == "="
            ):
                ref = kids[0].referenced
                if ref is not None and ref.kind == K.VAR_DECL and _copyable(ref.type):
                    copies.append((ref, _stripped(kids[1])))
                    if parent is not None and parent.kind in _STATEMENT_PLACES:
                        targets.add(_raw(kids[0]).hash)  # else its value goes on, whole
        self._returned_copy(returns, first)
        calls = [(var, read) for var, read in copies if self._own_struct_call(read)]
        copies = [
            (var, read)
            for var, read in copies
            if self._lvalue(read) is not None
            and read.type.get_canonical().kind == T.RECORD
            and read.type.get_canonical().get_declaration()
            == var.type.get_canonical().get_declaration()
        ]
        by_variable = {_raw(call).hash for _, call in calls}
        for parent, node in struct_calls:
            if _raw(node).hash not in by_variable:
                member = parent is not None and parent.kind == K.MEMBER_REF_EXPR
                read = frozenset({str(parent.spelling)}) if member else None
                self.result_uses.append(ResultUse(self.function_name, str(node.spelling), read))
        if not copies and not calls:
            return
        used: dict[int, set[str] | None] = {_raw(var).hash: set() for var, _ in [*copies, *calls]}
        for parent, node in _with_parents(body):
            if node.kind != K.DECL_REF_EXPR or node.referenced is None:
                continue
            key = node.referenced.hash
            if key not in used or _raw(node).hash in targets:
                continue
            members = used[key]
            if members is None:
                continue
            arrow = parent is not None and _canonical_kind(node.type) == T.POINTER
            if parent is not None and parent.kind == K.MEMBER_REF_EXPR and not arrow:
                members.add(str(parent.spelling))
            else:
                used[key] = None  # named whole: every member may be read
        for var, call in calls:
            members = used[_raw(var).hash]
            read = None if members is None else frozenset(members)
            self.result_uses.append(ResultUse(self.function_name, str(call.spelling), read))
        spans: dict[tuple[int, int], list[int]] = {}
        for index in range(first, len(self.accesses)):
            a = self.accesses[index]
            spans.setdefault((a.span.start, a.span.end), []).append(index)
        for var, read in copies:
            members = used[_raw(var).hash]
            if members is None:
                continue
            unused = unread_bytes(_member_places(var.type), members)
            span, _ = self._span(read)
            found = spans.get((span.start, span.end), [])
            if not unused or len(found) != 1:
                continue  # a macro's several accesses share a span: claim nothing
            a = self.accesses[found[0]]
            if a.kind is AccessKind.READ and a.size == int(var.type.get_canonical().get_size()):
                self.accesses[found[0]] = replace(a, unused=unused)

    def _own_struct_call(self, node: Any) -> bool:
        """A call of a function of this file that returns a private struct."""
        return (
            node.kind == K.CALL_EXPR
            and str(node.spelling) in self.own_functions
            and _copyable(node.type)
        )

    def _returned_copy(self, returns: list[Any], first: int) -> None:
        """Note the site (from ``first``) of each of these return statements that is a
        ``return loc[i];`` of a whole struct read from memory: what the calls a traced kernel
        runs read of the result decides its unused bytes (``ParsedSource.for_kernel``)."""
        for node in returns:
            kids = _children(node)
            if len(kids) != 1 or not _copyable(kids[0].type):
                continue
            read = _stripped(kids[0])
            if self._lvalue(read) is None:
                continue
            span, _ = self._span(read)
            found = [
                index
                for index in range(first, len(self.accesses))
                if (self.accesses[index].span.start, self.accesses[index].span.end)
                == (span.start, span.end)
            ]
            size = int(read.type.get_canonical().get_size())
            if len(found) == 1:
                a = self.accesses[found[0]]
                if a.kind is AccessKind.READ and a.size == size:
                    places = _member_places(read.type)
                    self.returned_copies.append(ReturnedCopy(self.function_name, a.span, places))

    def _parameter(self, p: Any) -> Parameter:
        t = p.type
        is_pointer = _canonical_kind(t) == T.POINTER
        element = t.get_canonical().get_pointee() if is_pointer else t
        canonical = element.get_canonical()
        width = canonical.element_count if canonical.kind in VECTOR_KINDS else 1
        words = [w for w in t.spelling.replace("*", " * ").split() if w not in ("__private",)]
        return Parameter(
            name=p.spelling,
            type_text=" ".join(words).replace(" * ", " *").replace("* ", "*").strip(),
            address_space=_space(element.spelling) if is_pointer else AddressSpace.PRIVATE,
            is_pointer=is_pointer,
            element_type=_type_name(element),
            element_size=max(int(element.get_size()), 0),
            vector_width=int(width),
            is_const=bool(element.is_const_qualified()) if is_pointer else False,
            is_restrict=bool(t.is_restrict_qualified()),
            padding=padding(element) if is_pointer else (),
        )

    def _collect_assignments(self, c: Any) -> None:
        """Every value stored into a private pointer (variable, struct member or element of
        an array of pointers: ``a[]`` stands for all of its elements), by name."""
        for node in c.walk():
            if node.kind == K.VAR_DECL and _canonical_kind(node.type) == T.POINTER:
                kids = [k for k in _children(node) if k.kind.is_expression()]
                if kids:
                    self.assignments.setdefault(node.spelling, []).append(kids[-1])
            elif node.kind == K.VAR_DECL:
                kids = [k for k in _children(node) if k.kind.is_expression()]
                if kids and _strip(kids[-1]).kind == K.INIT_LIST_EXPR:
                    self._initialised(str(node.spelling), node.type, _strip(kids[-1]))
            elif node.kind == K.BINARY_OPERATOR and clang_bridge.binary_operator(_raw(node)) == "=":
                lhs, rhs = _children(node)
                key = self._key(lhs)
                if key is not None and _canonical_kind(lhs.type) == T.POINTER:
                    self.assignments.setdefault(key, []).append(rhs)

    def _initialised(self, key: str, t: Any, init: Any) -> None:
        """The pointers a brace initialiser stores into a struct's members or an array's
        elements (nested ones too)."""
        canonical = t.get_canonical()
        values = [k for k in _children(init) if k.kind.is_expression()]
        if canonical.kind in ARRAY_KINDS:
            element = canonical.element_type
            for v in values:
                self._initialised_one(f"{key}[]", element, v)
        elif canonical.kind == T.RECORD:
            fields = list(canonical.get_fields())
            for f, v in zip(fields, values, strict=False):
                self._initialised_one(f"{key}.{f.spelling}", f.type, v)

    def _initialised_one(self, key: str, t: Any, value: Any) -> None:
        if _canonical_kind(t) == T.POINTER:
            self.assignments.setdefault(key, []).append(value)
        elif _strip(value).kind == K.INIT_LIST_EXPR:
            self._initialised(key, t, _strip(value))

    def _key(self, c: Any) -> str | None:
        c = _strip(c)
        if c.kind == K.DECL_REF_EXPR:
            return str(c.spelling)
        if c.kind == K.ARRAY_SUBSCRIPT_EXPR:
            kids = [_strip(k) for k in _children(c)]
            if len(kids) == 2 and _canonical_kind(kids[0].type) in ARRAY_KINDS:
                inner = self._key(kids[0])
                return f"{inner}[]" if inner else None
        if c.kind == K.MEMBER_REF_EXPR:
            kids = _children(c)
            if kids and _canonical_kind(kids[0].type) != T.POINTER:
                inner = self._key(kids[0])
                return f"{inner}.{c.spelling}" if inner else None
        return None

    def visit(self, c: Any, mode: str) -> None:
        lvalue = self._lvalue(c)
        if lvalue is not None:
            if _canonical_kind(lvalue.node.type) in ARRAY_KINDS:
                mode = ADDRESS
            if mode != ADDRESS:
                self._record(lvalue, MODE_KIND[mode])
            self._visit_address_parts(lvalue)
            return
        kind = c.kind
        kids = _children(c)
        if kind == K.BINARY_OPERATOR and len(kids) == 2:
            operator = clang_bridge.binary_operator(_raw(c))
            write = operator == "="
            if operator in ARITHMETIC and self._same_local_places(kids[0], kids[1]):
                self.local_address_arithmetic.append(self._span(c)[0].line)
            self.visit(kids[0], WRITE if write else READ)
            self.visit(kids[1], READ)
        elif kind == K.COMPOUND_ASSIGNMENT_OPERATOR and len(kids) == 2:
            self.visit(kids[0], RMW)
            self.visit(kids[1], READ)
        elif kind == K.UNARY_OPERATOR and kids:
            op = clang_bridge.unary_operator(_raw(c))
            sub = RMW if op in ("++", "--") else ADDRESS if op == "&" else READ
            self.visit(kids[0], sub)
        elif kind == K.CALL_EXPR:
            self._call(c)
        elif kind == K.DECL_STMT:
            self._declarations(c)
            for k in kids:
                self.visit(k, READ)
        elif kind == K.RETURN_STMT:
            span, _ = self._span(c)
            self.returns.append(Return(self.function_name, span.line, span, bool(kids)))
            for k in kids:
                self.visit(k, READ)
        elif kind in (K.PAREN_EXPR, K.UNEXPOSED_EXPR):
            for k in kids:
                self.visit(k, mode)
        else:
            for k in kids:
                self.visit(k, READ)

    def _same_local_places(self, left: Any, right: Any) -> bool:
        """Whether both values are addresses of constant places in one ``__local``
        variable (through casts, to pointers or integers)."""
        first = _local_place(left)
        return first is not None and first == _local_place(right)

    def _declarations(self, c: Any) -> None:
        """The `__local` variables and the private arrays one declaration statement declares
        (a private array's accesses are bounds-checked in trace builds)."""
        end = self.positions.char(c.extent.end.offset)
        opening = self.positions.char(c.extent.start.offset)
        for decl in _children(c):
            if decl.kind != K.VAR_DECL or _canonical_kind(decl.type) == T.POINTER:
                continue
            space = _own_space(decl.type.spelling)
            canonical = decl.type.get_canonical()
            line = self.positions.line_column(end)[0]
            start = self.positions.char(decl.extent.start.offset)
            stop = self.positions.char(decl.extent.end.offset)
            given = _has_initialiser(self.source[start:stop])
            if space is AddressSpace.PRIVATE and canonical.kind == T.RECORD:
                self._member_arrays(str(decl.spelling), canonical, line, end, given, opening)
                continue
            private_array = space is AddressSpace.PRIVATE and canonical.kind in ARRAY_KINDS
            if space is not AddressSpace.LOCAL and not private_array:
                continue
            self._variable(str(decl.spelling), decl.type, space, line, end, given, opening)

    def _variable(
        self,
        name: str,
        t: Any,
        space: AddressSpace,
        line: int,
        end: int,
        given: bool = False,
        opening: int = -1,
    ) -> None:
        shape: list[int] = []
        t = t.get_canonical()
        while t.kind in ARRAY_KINDS:
            shape.append(max(int(t.element_count), 0))
            t = t.element_type.get_canonical()
        components = int(t.element_count) if t.kind in VECTOR_KINDS else 0
        self.variables.append(
            Variable(
                name=name,
                function=self.function_name,
                line=line,
                address_space=space,
                shape=tuple(shape),
                element_size=max(int(t.get_size()), 0),
                decl_end=end,
                initialised=given,
                decl_start=opening,
                components=components,
                padding=padding(t),
                element_type=_type_name(t),
            )
        )

    def _member_arrays(
        self, name: str, record: Any, line: int, end: int, given: bool = False, opening: int = -1
    ) -> None:
        """The array members of a private struct variable (``s.v``, ``s.inner.v``), each a
        private array of its own named as the kernel writes it: bounds-checked with the
        member's own extent."""
        for field in record.get_fields():
            member = f"{name}{'' if name.endswith('->') else '.'}{field.spelling}"
            t = field.type.get_canonical()
            if t.kind in ARRAY_KINDS:
                self._variable(member, t, AddressSpace.PRIVATE, line, end, given, opening)
            elif t.kind == T.RECORD and field.spelling:
                self._member_arrays(member, t, line, end, given, opening)

    def _visit_address_parts(self, lvalue: _Lvalue) -> None:
        if lvalue.pointer is not None:
            array = _canonical_kind(lvalue.pointer.type) in ARRAY_KINDS
            self.visit(lvalue.pointer, ADDRESS if array else READ)
        for index in lvalue.indices:
            self.visit(index, READ)

    def _lvalue(self, c: Any) -> _Lvalue | None:
        """The memory `c` designates, or None when it is a value or a private variable."""
        kind = c.kind
        kids = _children(c)
        if kind == K.PAREN_EXPR and len(kids) == 1:
            return self._lvalue(kids[0])
        if kind == K.ARRAY_SUBSCRIPT_EXPR and len(kids) == 2:
            first, second = kids
            pointer, index = (first, second) if _is_pointerish(first.type) else (second, first)
            return _Lvalue(c, pointer, (index,))
        if kind == K.UNARY_OPERATOR and kids and clang_bridge.unary_operator(_raw(c)) == "*":
            return _Lvalue(c, kids[0], ())
        if kind == K.MEMBER_REF_EXPR and kids:
            if _canonical_kind(kids[0].type) == T.POINTER:
                return _Lvalue(c, kids[0], ())
            inner = self._lvalue(kids[0])
            return replace(inner, node=c) if inner is not None else None
        if kind == K.UNEXPOSED_EXPR and len(kids) == 1 and _is_vector_select(c, kids[0]):
            inner = self._lvalue(kids[0])
            if inner is None:
                return None
            picked = self._components(c, kids[0])
            width = inner.width
            if inner.components and picked:  # a chain (`v.wx.x`): every selection, in order
                picked = f"{inner.components}.{picked}"
            else:
                width = int(kids[0].type.get_canonical().element_count)
            return replace(inner, node=c, components=picked, width=width)
        if kind == K.DECL_REF_EXPR:
            ref = c.referenced
            if ref is not None and ref.kind == K.VAR_DECL:
                canonical = _canonical_kind(c.type)
                shared = _space(c.type.spelling) in (AddressSpace.LOCAL, AddressSpace.CONSTANT)
                if shared and canonical != T.POINTER and canonical not in ARRAY_KINDS:
                    return _Lvalue(c, None, (), variable=str(c.spelling))
        return None

    def _components(self, c: Any, child: Any) -> str | None:
        start = self.positions.char(child.extent.end.offset)
        end = self.positions.char(c.extent.end.offset)
        text = self.source[start:end].strip().lstrip(".").strip()
        return text or None

    def _origin(self, c: Any, seen: frozenset[str] = frozenset()) -> _Origin | None:
        """Which parameters or variables the pointer value `c` is computed from; for a
        pointer made from an integer (cast or not, as OpenCL compilers accept), the text
        written: no name leads to its buffer, and the runtime finds it from the address."""
        origin = self._named_origin(c, seen)
        if origin is None and _from_integer(c) and _points_outside_private(c):
            text = self._text(c)
            return _Origin(text, True, (text,))
        return origin

    def _named_origin(self, c: Any, seen: frozenset[str]) -> _Origin | None:
        c = _strip(c)
        kind = c.kind
        kids = _children(c)
        if kind == K.DECL_REF_EXPR:
            ref = c.referenced
            name = str(c.spelling)
            if ref is None:
                return None
            if ref.kind == K.PARM_DECL or _canonical_kind(ref.type) in ARRAY_KINDS:
                return _Origin(name, False, (name,))
            if ref.kind == K.VAR_DECL:
                roots = self._roots(name, seen)
                return _Origin(name, True, roots) if roots else None
            return None
        if kind == K.CSTYLE_CAST_EXPR and kids:
            inner = kids[-1]
            if not _is_pointerish(inner.type):
                return None
            origin = self._origin(inner, seen)
            return replace(origin, derived=True) if origin else None
        if kind == K.BINARY_OPERATOR and len(kids) == 2:
            pointer = kids[0] if _is_pointerish(kids[0].type) else kids[1]
            origin = self._origin(pointer, seen)
            return replace(origin, derived=True) if origin else None
        if kind in (K.UNARY_OPERATOR, K.COMPOUND_ASSIGNMENT_OPERATOR) and kids:
            if kind == K.UNARY_OPERATOR and clang_bridge.unary_operator(_raw(c)) == "&":
                lvalue = self._lvalue(kids[0])
                return self._lvalue_origin(lvalue, seen) if lvalue else None
            origin = self._origin(kids[0], seen)
            return replace(origin, derived=True) if origin else None
        if kind == K.CONDITIONAL_OPERATOR and len(kids) == 3:
            both = [self._origin(k, seen) for k in kids[1:]]
            if None in both:
                return None
            roots = tuple(dict.fromkeys(r for o in both if o for r in o.roots))
            return _Origin(self._text(c), True, roots)
        if kind in (K.MEMBER_REF_EXPR, K.ARRAY_SUBSCRIPT_EXPR) and (
            _canonical_kind(c.type) == T.POINTER
        ):
            key = self._key(c)
            roots = self._roots(key, seen) if key else ()
            if key and roots:
                return _Origin(key, True, roots)
            if kind == K.MEMBER_REF_EXPR and self._from_parameter(c):
                # A helper's struct parameter: which buffer it points into is known where it
                # runs (the runtime finds the buffer from the address).
                text = self._text(c)
                return _Origin(text, True, (text,))
            return None
        member = _parameter_member_array(c)
        if member is not None:
            return _Origin(member, False, (member,))
        lvalue = self._lvalue(c)
        if lvalue is not None and _canonical_kind(c.type) in ARRAY_KINDS:
            return self._lvalue_origin(lvalue, seen)
        member = self._private_member_array(c)
        if member is not None:
            return _Origin(member, False, (member,))
        return None

    def _private_member_array(self, c: Any) -> str | None:
        """The name (``s.v``, ``s.inner.v``) of an array member of a private struct variable
        the function declares, as ``_member_arrays`` registers it; None for any other value
        (an array of structs' member, ``s[k].v``, is not one array)."""
        if c.kind != K.MEMBER_REF_EXPR or _canonical_kind(c.type) not in ARRAY_KINDS:
            return None
        node = c
        while node.kind == K.MEMBER_REF_EXPR:
            kids = _children(node)
            if not kids or _canonical_kind(kids[0].type) != T.RECORD:
                return None  # through a pointer (`a->v`): not this function's variable
            node = _strip(kids[0])
        ref = node.referenced if node.kind == K.DECL_REF_EXPR else None
        if ref is None or ref.kind not in (K.VAR_DECL, K.PARM_DECL):
            return None
        if _space(ref.type.spelling) is not AddressSpace.PRIVATE:
            return None
        return self._key(c)

    def _into_private_variable(self, c: Any, seen: frozenset[str]) -> bool:
        """Whether the pointer ``c`` points into a private variable that is not an array
        (``&c``, ``&z.im``, ``(uchar *)&v``, a private pointer only ever given such
        addresses): memory the trace does not record, as it does not record ``c = ...``."""
        c = _strip(c)
        kids = _children(c)
        if (
            _canonical_kind(c.type) == T.POINTER
            and _space(c.type.get_canonical().get_pointee().spelling) is not AddressSpace.PRIVATE
        ):
            return False
        if c.kind == K.UNARY_OPERATOR and kids and clang_bridge.unary_operator(_raw(c)) == "&":
            return self._private_variable(kids[0])
        if c.kind == K.CSTYLE_CAST_EXPR and kids:
            return _is_pointerish(kids[-1].type) and self._into_private_variable(kids[-1], seen)
        if c.kind == K.BINARY_OPERATOR and len(kids) == 2:  # an offset into the variable
            pointer = kids[0] if _is_pointerish(kids[0].type) else kids[1]
            return self._into_private_variable(pointer, seen)
        if c.kind == K.CONDITIONAL_OPERATOR and len(kids) == 3:
            return all(self._into_private_variable(k, seen) for k in kids[1:])
        if c.kind == K.DECL_REF_EXPR and _canonical_kind(c.type) == T.POINTER:
            ref = c.referenced
            name = str(c.spelling)
            if ref is None or ref.kind != K.VAR_DECL or name in seen:
                return False
            stored = self.assignments.get(name, [])
            return bool(stored) and all(
                self._into_private_variable(v, seen | {name}) for v in stored
            )
        return False

    def _private_variable(self, c: Any) -> bool:
        """Whether ``c`` names a private variable (or a member or component of one) that
        is neither an array nor a pointer: one the trace does not record."""
        c = _strip(c)
        kids = _children(c)
        if c.kind == K.MEMBER_REF_EXPR and kids:
            return _canonical_kind(kids[0].type) != T.POINTER and self._private_variable(kids[0])
        if c.kind == K.UNEXPOSED_EXPR and len(kids) == 1 and _is_vector_select(c, kids[0]):
            return self._private_variable(kids[0])
        if c.kind != K.DECL_REF_EXPR:
            return False
        ref = c.referenced
        if ref is None or ref.kind not in (K.VAR_DECL, K.PARM_DECL):
            return False
        canonical = _canonical_kind(c.type)
        return (
            canonical != T.POINTER
            and canonical not in ARRAY_KINDS
            and _space(c.type.spelling) is AddressSpace.PRIVATE
        )

    def _from_parameter(self, c: Any) -> bool:
        """Whether the struct a member is taken from is (or is pointed to by) a parameter."""
        c = _strip(c)
        while c.kind in (K.MEMBER_REF_EXPR, K.ARRAY_SUBSCRIPT_EXPR, K.PAREN_EXPR):
            kids = _children(c)
            if not kids:
                return False
            c = _strip(kids[0])
        ref = c.referenced if c.kind == K.DECL_REF_EXPR else None
        return ref is not None and ref.kind == K.PARM_DECL

    def _roots(self, key: str, seen: frozenset[str]) -> tuple[str, ...]:
        """The roots of every value stored into a private pointer; () when one is unknown."""
        if key in seen:
            return ()
        roots: list[str] = []
        stored = self.assignments.get(key, [])
        for value in stored:
            origin = self._origin(value, seen | {key})
            if origin is None:
                return ()
            roots.extend(origin.roots)
        return tuple(dict.fromkeys(roots))

    def _lvalue_origin(self, lvalue: _Lvalue, seen: frozenset[str]) -> _Origin | None:
        if lvalue.variable is not None:
            return _Origin(lvalue.variable, False, (lvalue.variable,))
        return self._origin(lvalue.pointer, seen)

    def _record(self, lvalue: _Lvalue, kind: AccessKind) -> None:
        node = lvalue.node
        origin = self._lvalue_origin(lvalue, frozenset())
        size = int(node.type.get_size())
        if origin is None and self._into_private_variable(lvalue.pointer, frozenset()):
            return  # a private variable's own memory, no more traced than its name's
        if origin is None:
            self._unclassified(node, "the address does not come from a buffer, array or variable")
            return
        if size <= 0:
            self._unclassified(node, "the accessed type has no size")
            return
        spelling = node.type.spelling
        if _canonical_kind(node.type) == T.POINTER:  # the pointer itself: where it is kept
            spelling = spelling.rpartition("*")[2]
        self._site(
            node,
            kind,
            origin,
            _space(spelling),
            _type_name(node.type),
            size,
            components=lvalue.components,
            vector_width=lvalue.width,
        )

    def _site(
        self,
        node: Any,
        kind: AccessKind,
        origin: _Origin,
        space: AddressSpace,
        element_type: str,
        size: int,
        *,
        components: str | None = None,
        vector_width: int = 0,
        builtin: str | None = None,
        arguments: tuple[Span, ...] = (),
        data_type: str = "",
    ) -> None:
        span, macro = self._span(node)
        self.accesses.append(
            AccessSite(
                function=self.function_name,
                line=span.line,
                column=span.column,
                span=span,
                text=self.source[span.start : span.end],
                address_space=space,
                base=origin.base,
                derived=origin.derived,
                roots=origin.roots,
                element_type=element_type,
                size=size,
                kind=kind,
                components=components,
                vector_width=vector_width,
                builtin=builtin,
                arguments=arguments,
                macro=macro,
                data_type=data_type,
            )
        )

    def _span(self, node: Any) -> tuple[Span, str | None]:
        """The user's text for `node`: widened to the whole invocation when a macro wrote it."""
        start = self.positions.char(node.extent.start.offset)
        end = self.positions.char(node.extent.end.offset)
        names = []
        for m in self.macros:
            if m.prelude and m.start <= start < m.end:
                inside = self._in_argument(node, m)
                if inside is not None:
                    start, end = inside
                    continue
            if m.start <= start < m.end or m.start <= end < m.end:
                start, end = min(start, m.start), max(end, m.end)
                names.append(m.name)
        return self.positions.span(start, end), (names[0] if names else None)

    def _argument_span(self, node: Any) -> Span:
        """A call argument's span, closed: clang's extent of a vector literal cast that ends
        the argument (``x + (uchar3)(1)``) stops before its last parenthesis, and a rewrite
        of the call that cut there would leave the literal open."""
        span, _ = self._span(node)
        text, end = self.source, span.end
        missing = text[span.start : end].count("(") - text[span.start : end].count(")")
        while missing > 0:
            at = end
            while at < len(text) and text[at] in " \t\r\n":
                at += 1
            if at >= len(text) or text[at] != ")":
                break
            end, missing = at + 1, missing - 1
        return span if end == span.end else self.positions.span(span.start, end)

    def _in_argument(self, node: Any, macro: _Macro) -> tuple[int, int] | None:
        """Where `node` is written when that is inside one of `macro`'s arguments."""
        first_file, first = clang_bridge.written_at(node.extent.start)
        last_file, last = clang_bridge.written_at(node.extent.end)
        if first_file != self.filename or last_file != self.filename:
            return None
        start, end = self.positions.char(first), self.positions.char(last)
        return (start, end) if macro.start < start <= end < macro.end else None

    def _text(self, node: Any) -> str:
        span, _ = self._span(node)
        return self.source[span.start : span.end]

    def _unclassified(self, node: Any, reason: str) -> None:
        span, _ = self._span(node)
        self.unclassified.append(
            Unclassified(span.line, self.source[span.start : span.end], reason, self.function_name)
        )

    def _call(self, c: Any) -> None:
        name = str(c.spelling)
        args = list(c.get_arguments())
        if name in SYNC_CALLS:
            self._sync(c, SYNC_CALLS[name], args)
        elif name.startswith(("atomic_", "atom_")) and args and name not in self.own_functions:
            # (a function of the program's own, `atomic_add_float`, is a helper call)
            self._builtin_access(c, args, 0, AccessKind.ATOMIC, 1)
        elif (match := VLOAD.match(name)) and len(args) == 2:
            self._builtin_access(c, args, 1, AccessKind.VLOAD, int(match.group(2) or 1))
        elif (match := VSTORE.match(name)) and len(args) == 3:
            self._builtin_access(c, args, 2, AccessKind.VSTORE, int(match.group(2) or 1))
        elif name in STORES_THROUGH_LAST and args and _canonical_kind(args[-1].type) == T.POINTER:
            self._builtin_access(c, args, len(args) - 1, AccessKind.WRITE, 1)
        elif name in ASYNC_COPIES and len(args) >= 2:
            self._builtin_access(c, args, 1, AccessKind.ASYNC_COPY_READ, 1, visit=False)
            self._builtin_access(c, args, 0, AccessKind.ASYNC_COPY_WRITE, 1)
        elif IMAGE_CALL.match(name):
            self._image_call(c, name, args)
            for a in args:
                self.visit(a, READ)
        else:
            if name.startswith("__builtin_") and any(
                _canonical_kind(a.type) == T.POINTER
                and _space(a.type.get_pointee().spelling) is not AddressSpace.PRIVATE
                and not _string_literal(a)
                for a in args
            ):
                self._unclassified(c, f"{name} touches memory through a pointer")
            elif name not in self.own_functions and self._included(c, args):
                self._unclassified(
                    c, f"{name} is defined in an included file: its accesses are not traced"
                )
            if name in self.own_functions:
                span, macro = self._span(c)
                close = self.positions.char(c.extent.end.offset) - 1
                roots = tuple(self._argument_roots(a) for a in args)
                self.calls.append(
                    Call(self.function_name, name, span.line, span, close, not args, macro, roots)
                )
            for a in args:
                self.visit(a, READ)

    def _image_call(self, c: Any, name: str, args: list[Any]) -> None:
        """A read or write of a 2-D or 3-D image: which image, the coordinate's type and
        the sampler, for the trace to record the pixel it reaches."""
        write = name.startswith("write_")
        if len(args) < 2 or (write and len(args) != 3) or (not write and len(args) > 3):
            self._unclassified(c, f"{name}: an image call of an unexpected form")
            return
        image_type = " ".join(str(args[0].type.spelling).split())
        words = image_type.split()
        if not words or words[-1] not in ("image2d_t", "image3d_t"):
            self._unclassified(c, f"{name} of an {words[-1] if words else 'image'}: not traced")
            return
        if name.endswith("h"):
            self._unclassified(c, f"{name}: half-precision image calls are not traced")
            return
        origin = self._origin_of_value(args[0])
        has_sampler = not write and len(args) == 3
        sampler, flags = self._sampler(args[1]) if has_sampler else ("", None)
        coordinate = args[1] if write or len(args) == 2 else args[2]
        span, macro = self._span(c)
        self.images.append(
            ImageCall(
                function=self.function_name,
                line=span.line,
                column=span.column,
                span=span,
                text=self.source[span.start : span.end],
                builtin=name,
                write=write,
                image=origin[0] if origin else "",
                roots=origin,
                image_type=image_type,
                coordinate_type=_type_name(coordinate.type),
                arguments=self._call_arguments(span, len(args)),
                has_sampler=has_sampler,
                sampler=sampler,
                sampler_flags=flags,
                macro=macro,
            )
        )

    def _call_arguments(self, span: Span, count: int) -> tuple[Span, ...]:
        """The spans of a call's ``count`` arguments, split at its top-level commas (clang's
        extent of a vector literal cast such as ``(float4)(v)`` stops before its last
        parenthesis)."""
        text = self.source[span.start : span.end]
        opening = text.find("(")
        cuts, depth, quote = [opening], 0, ""
        for at in range(opening, len(text)):
            ch = text[at]
            if quote:
                quote = "" if ch == quote and text[at - 1] != "\\" else quote
            elif ch in "\"'":
                quote = ch
            elif ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
                if depth == 0:
                    cuts.append(at)
                    break
            elif ch == "," and depth == 1:
                cuts.append(at)
        spans = []
        for left, right in itertools.pairwise(cuts):
            piece = text[left + 1 : right]
            start = span.start + left + 1 + (len(piece) - len(piece.lstrip()))
            end = span.start + right - (len(piece) - len(piece.rstrip()))
            spans.append(self.positions.span(start, end))
        return tuple(spans[:count])

    def _origin_of_value(self, a: Any) -> tuple[str, ...]:
        """The parameter or variable an image (or sampler) argument names, through casts and
        parentheses; () where it is an expression of something else."""
        node = a
        while _children(node) and node.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR, K.CSTYLE_CAST_EXPR):
            node = _children(node)[-1]
        if node.kind == K.DECL_REF_EXPR:
            return (str(node.spelling),)
        return ()

    def _sampler(self, a: Any) -> tuple[str, int | None]:
        """A sampler argument: the parameter it is, or its flags where they are a constant
        (an inline ``CLK_...`` expression, or a variable initialised with one)."""
        flags = _constant_int(a)
        if flags is not None:
            return "", flags
        node = a
        while _children(node) and node.kind in (K.UNEXPOSED_EXPR, K.PAREN_EXPR, K.CSTYLE_CAST_EXPR):
            node = _children(node)[-1]
        if node.kind != K.DECL_REF_EXPR:
            return "", None
        target = _raw(node).referenced
        if target is None:
            return "", None
        if target.kind == K.PARM_DECL:
            return str(target.spelling), None
        if target.kind == K.VAR_DECL:
            kids = list(target.get_children())
            return "", _constant_int(kids[-1]) if kids else None
        return "", None

    def _included(self, c: Any, args: list[Any]) -> bool:
        """Whether `c` calls a function an `#include`d file defines, with a pointer into
        memory the trace records (its accesses happen where the rewrite cannot reach)."""
        target = c.referenced
        where = target.location.file if target is not None else None
        if where is None or where.name in (self.filename, clang_bridge.PRELUDE_NAME):
            return False
        return any(
            _canonical_kind(a.type) == T.POINTER
            and _space(a.type.get_pointee().spelling) is not AddressSpace.PRIVATE
            for a in args
        )

    def _argument_roots(self, a: Any) -> tuple[str, ...]:
        """Where a pointer argument's value comes from, or the name an image or a sampler
        argument is; () for a value or an unknown origin."""
        spelling = str(a.type.get_canonical().spelling)
        if ("image" in spelling and spelling.endswith("_t")) or "sampler_t" in spelling:
            return self._origin_of_value(a)
        if not _is_pointerish(a.type):
            return ()
        origin = self._origin(a)
        return origin.roots if origin is not None else ()

    def _builtin_access(
        self, c: Any, args: list[Any], at: int, kind: AccessKind, count: int, visit: bool = True
    ) -> None:
        """An access made by a builtin through its pointer argument `args[at]`."""
        pointer = args[at]
        pointee = pointer.type.get_pointee()
        origin = self._origin(pointer)
        size = int(pointee.get_size()) * count
        if kind in (AccessKind.VLOAD, AccessKind.VSTORE) and "half" in str(c.spelling):
            size = 2 * count
        if origin is None and self._into_private_variable(pointer, frozenset()):
            pass  # `sincos(x, &c)`: stored into a private variable, as `c = ...` is
        elif origin is None or size <= 0:
            self._unclassified(c, f"{c.spelling}: cannot tell which buffer its pointer is into")
        else:
            self._site(
                c,
                kind,
                origin,
                _space(pointee.spelling),
                _type_name(pointee),
                size,
                builtin=str(c.spelling),
                arguments=tuple(self._argument_span(a) for a in args),
                data_type=_type_name(args[0].type) if kind is AccessKind.VSTORE else "",
            )
        if visit:
            for a in args:
                self.visit(a, READ)

    def _sync(self, c: Any, kind: SyncKind, args: list[Any]) -> None:
        fences: frozenset[AddressSpace]
        dynamic = False
        if kind is SyncKind.WAIT_GROUP_EVENTS:
            fences = frozenset({AddressSpace.LOCAL, AddressSpace.GLOBAL})
        else:
            flags = clang_bridge.evaluate_int(_raw(args[0])) if args else None
            if flags is None and not args:
                self._unclassified(c, "a barrier or fence without its flags")
                return
            # Flags computed where it runs: recorded there (both spaces until then).
            dynamic = flags is None
            flags = FENCE_LOCAL | FENCE_GLOBAL if flags is None else flags
            named = {FENCE_LOCAL: AddressSpace.LOCAL, FENCE_GLOBAL: AddressSpace.GLOBAL}
            fences = frozenset(space for bit, space in named.items() if flags & bit)
        span, macro = self._span(c)
        arguments = tuple(self._argument_span(a) for a in args)
        self.syncs.append(
            SyncSite(
                self.function_name,
                span.line,
                span.column,
                span,
                kind,
                fences,
                macro,
                arguments,
                dynamic,
            )
        )
        for a in args:
            self.visit(a, READ)
