"""The value plane's side of the rewrite: which accesses can carry their value, the typed
functions that record it, and where an assignment's value ends in the text.

A value is taken from the expression that has it (a load, an assignment, an atomic call),
wrapped in ``__tr_v_<type>(__tr_ptr, site, expression)``: the function records the bits and
returns the value unchanged, so the kernel computes what it did before. One function per
type the kernel accesses is generated beside the runtime (``runtime.cl`` says how the record
is found).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# clang's canonical spelling of a scalar -> (OpenCL name, bytes, how to widen its bits).
SCALARS: dict[str, tuple[str, int, str]] = {
    "char": ("char", 1, "(ulong)(uchar)({})"),
    "unsigned char": ("uchar", 1, "(ulong)({})"),
    "short": ("short", 2, "(ulong)(ushort)({})"),
    "unsigned short": ("ushort", 2, "(ulong)({})"),
    "int": ("int", 4, "(ulong)(uint)({})"),
    "unsigned int": ("uint", 4, "(ulong)({})"),
    "float": ("float", 4, "(ulong)as_uint({})"),
    "long": ("long", 8, "(ulong)({})"),
    "unsigned long": ("ulong", 8, "({})"),
    "double": ("double", 8, "as_ulong({})"),
}
VECTOR_WIDTHS = (2, 3, 4, 8, 16)
COMPONENTS = "0123456789abcdef"
# The digest of a vector's components past the first, where the vector is wider than the
# plane (FNV-1a over the widened components, folded once).
DIGEST_SEED, DIGEST_PRIME = 0xCBF29CE484222325, 0x100000001B3


@dataclass(frozen=True)
class ValueType:
    """A type whose value the plane can hold (its first bytes, for a wide vector)."""

    name: str  # the OpenCL spelling: float, uint4
    scalar: str  # clang's spelling of the component type
    width: int  # components; 1 for a scalar

    @property
    def bytes(self) -> int:
        """Bytes of the value (a 3-vector counts its three components)."""
        return SCALARS[self.scalar][1] * self.width

    def function(self, plane_bytes: int, own_record: bool = False) -> str:
        """The OpenCL C function that records this type's first ``plane_bytes`` bytes into
        the latest record of its site (``__tr_v_<type>``); with ``own_record``, into a record
        of its own that it makes first (``__tr_a_<type>``, index anatomy's values)."""
        _, size, widen = SCALARS[self.scalar]
        if self.width == 1:
            bits = widen.format("v")
        elif plane_bytes > size and self.bytes > plane_bytes:
            # Too wide for the plane: the first component, then a digest of the others in
            # the rest, so two stores compare whole (recorded.value_form: which form a site's
            # records hold).
            rest = "".join(
                f"    h = (h ^ {widen.format(f'v.s{COMPONENTS[k]}')}) * {DIGEST_PRIME}UL;\n"
                for k in range(1, self.width)
            )
            body = (
                f"static {self.name} __tr_v_{self.name}(__tr_state* st, uint site, "
                f"{self.name} v)\n{{\n    ulong h = {DIGEST_SEED}UL;\n{rest}"
                f"    h ^= h >> 29;\n"
                f"    __tr_val(st, site, {widen.format('v.s0')} | (h << {8 * size}));\n"
                f"    return v;\n}}\n"
            )
            return _fp64(self.scalar, body)
        else:
            held = [
                f"({widen.format(f'v.s{COMPONENTS[k]}')} << {8 * size * k})"
                for k in range(min(self.width, max(1, plane_bytes // size)))
            ]
            bits = " | ".join(held)
        prefix, put = "__tr_v_", ""
        if own_record:
            prefix, put = "__tr_a_", "    __tr_put(st, site, __TR_NO_BUFFER, 0, 1u, 0u);\n"
        body = (
            f"static {self.name} {prefix}{self.name}(__tr_state* st, uint site, {self.name} v)\n"
            f"{{\n{put}    __tr_val(st, site, {bits});\n    return v;\n}}\n"
        )
        return _fp64(self.scalar, body)

    def stored_function(self, plane_bytes: int, parts_site: int | None) -> str:
        """The OpenCL C function that records the value a store of this type wrote
        (``__tr_w_<type>``): as ``__tr_v_<type>`` does, and, where the vector is too wide
        for the plane, its other components at ``parts_site`` (``parts_function``), so
        every element the store wrote has its value."""
        parts = ""
        if parts_site is not None and self.parts_function(plane_bytes):
            parts = f"    __tr_p_{self.name}(st, {parts_site}u, site, v);\n"
        body = (
            f"static {self.name} __tr_w_{self.name}(__tr_state* st, uint site, {self.name} v)\n"
            f"{{\n    __tr_v_{self.name}(st, site, v);\n{parts}    return v;\n}}\n"
        )
        return _fp64(self.scalar, body)

    def fits(self, plane_bytes: int) -> bool:
        """Whether a record's value holds every component (``recorded.WHOLE_VALUE``)."""
        return self.bytes <= plane_bytes

    def parts_function(self, plane_bytes: int) -> str:
        """The OpenCL C function that records the components past the first of a vector too
        wide for one record's value, as many to a record as the plane holds
        (``__tr_p_<type>(st, parts_site, site, v)``, runtime.cl's ``__tr_part``: each part
        names the site whose latest record is the access it belongs to); "" where one
        record holds them all."""
        if self.width == 1 or self.fits(plane_bytes):
            return ""
        _, size, widen = SCALARS[self.scalar]
        per = max(1, plane_bytes // size)
        calls = []
        for first in range(1, self.width, per):
            held = range(first, min(self.width, first + per))
            bits = " | ".join(
                f"({widen.format(f'v.s{COMPONENTS[k]}')} << {8 * size * (k - first)})" for k in held
            )
            calls.append(f"    __tr_part(st, site, owner, {first}u, {bits});\n")
        body = (
            f"static void __tr_p_{self.name}(__tr_state* st, uint site, uint owner, "
            f"{self.name} v)\n"
            f"{{\n{''.join(calls)}}}\n"
        )
        return _fp64(self.scalar, body)


@dataclass(frozen=True)
class VectorStore:
    """The ``vstoreN`` calls of one vector type into one address space (``G``lobal or
    ``L``ocal). Each is rewritten into a call of this function, which makes the store's
    record, stores, and records the value stored: its body runs once the vector and the
    address are both evaluated, whatever order the call's arguments were evaluated in (C
    leaves it open), so the value lands in the store's own record.

    A ``vstore_halfN`` (``half``: the builtin as written, ``vstorea_half3_rtz``) stores a
    ``data`` vector (``float4``, ``double2``) as halves: ``value`` is then ``ushortN``, the
    halves' bits, which the function has the builtin write into a private vector first, so
    they are rounded exactly as in memory."""

    space: str  # G or L, as the runtime's __tr_g / __tr_l
    value: ValueType
    half: str = ""
    data: str = ""

    @property
    def name(self) -> str:
        if self.half:
            return f"__tr_vs_{self.space}_{self.half}_{self.data}"
        return f"__tr_vs_{self.space}_{self.value.name}"

    def function(self) -> str:
        """The function's OpenCL C (``__tr_w_<type>`` records the value, with the components
        past what the store's own record holds: ``ValueType.stored_function``)."""
        v = self.value
        word = "__global" if self.space == "G" else "__local"
        recorded = f"({word} uchar*)p" + (" + __tr_z(st)" if self.space == "L" else "")
        scalar = "half" if self.half else SCALARS[v.scalar][0]
        data = self.data if self.half else v.name
        builtin = self.half or f"vstore{v.width}"
        head = (
            f"static __TR_HELPER void {self.name}(__tr_state* st, {data} v, {word} {scalar}* p, "
            f"uint site, uint hint)\n{{\n"
        )
        if self.half:  # the halves' bits as this device rounds them, in a private vector
            head += f"    {v.name} bits;\n    {builtin}(v, 0, (__private half*)&bits);\n"
        body = (
            f"{head}    {word} {scalar}* q = ({word} {scalar}*)__tr_{self.space.lower()}(st, "
            f"{recorded}, {v.bytes}u, site, hint);\n"
            f"    {builtin}(v, 0, q);\n"
            f"    __tr_w_{v.name}(st, site, {'bits' if self.half else 'v'});\n}}\n"
        )
        return _fp64("double" if data.startswith("double") else v.scalar, body)


def _fp64(scalar: str, body: str) -> str:
    """``body``, only where the device has doubles when ``scalar`` is one."""
    if scalar == "double":
        return (
            "#ifdef cl_khr_fp64\n#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
            + body
            + "#endif\n"
        )
    return body


def value_type(element_type: str, components: int = 1) -> ValueType | None:
    """The value type of an access to ``element_type`` (clang's spelling, ``float4`` for a
    vector), read ``components`` elements at a time (``vload4`` of floats: 4); None when the
    plane cannot hold it (a struct, ``half``, ``bool``)."""
    spelled = " ".join(element_type.split())
    width = 1
    match = re.fullmatch(r"(.*?)(\d+)", spelled)
    if match and match.group(1) in SCALARS and int(match.group(2)) in VECTOR_WIDTHS:
        spelled, width = match.group(1), int(match.group(2))
    if spelled not in SCALARS:
        return None
    width *= components
    if width not in (1, *VECTOR_WIDTHS):
        return None
    name = SCALARS[spelled][0] + ("" if width == 1 else str(width))
    return ValueType(name, spelled, width)


def value_code(
    types: list[ValueType],
    plane_bytes: int,
    own_records: list[ValueType] | None = None,
    stores: list[VectorStore] | None = None,
    stored: list[ValueType] | None = None,
    parts_site: int | None = None,
) -> str:
    """The typed recording functions for ``types``, each once, those that make a record of
    their own for ``own_records``, those that record the vectors of ``stored`` (of
    ``types`` too) a store wrote, their components the plane has no room for at
    ``parts_site``, and the functions the ``vstoreN`` calls of ``stores`` become."""
    seen: dict[str, ValueType] = {t.name: t for t in types}
    code = "".join(seen[name].function(plane_bytes) for name in sorted(seen))
    own = {t.name: t for t in own_records or []}
    code += "".join(own[name].function(plane_bytes, True) for name in sorted(own))
    wide = {t.name: t for t in stored or []}
    code += "".join(wide[name].parts_function(plane_bytes) for name in sorted(wide))
    code += "".join(wide[name].stored_function(plane_bytes, parts_site) for name in sorted(wide))
    chosen = {s.name: s for s in stores or []}
    return code + "".join(chosen[name].function() for name in sorted(chosen))


def wide_vectors(stored: list[ValueType], types: list[ValueType]) -> bool:
    """Whether some of ``stored`` (vectors a store wrote) may not fit one record's value:
    the plane is at least as wide as ``types`` make it (8 bytes from one of 8 bytes on)."""
    plane = plane_bytes(types)
    return any(t.width > 1 and not t.fits(plane) for t in stored)


def plane_bytes(types: list[ValueType]) -> int:
    """The plane's width: 8 bytes when some value is that wide, else 4."""
    return 8 if any(t.bytes >= 8 for t in types) else 4


_SPACE = re.compile(r"\s+|//[^\n]*|/\*.*?\*/", re.S)
_OPENING, _CLOSING = "([{", ")]}"
_COMPOUND = ("<<=", ">>=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=")


def skip_space(text: str, pos: int) -> int:
    """The first position at or after ``pos`` that is not space or a comment."""
    while True:
        match = _SPACE.match(text, pos)
        if not match or match.end() == pos:
            return pos
        pos = match.end()


def operator_after(text: str, pos: int) -> tuple[str, int] | None:
    """The assignment or increment operator that follows ``pos`` (``=``, ``+=``, ``++``...)
    and where it ends, or None."""
    at = skip_space(text, pos)
    for op in (*_COMPOUND, "++", "--"):
        if text.startswith(op, at):
            return op, at + len(op)
    if text.startswith("=", at) and not text.startswith("==", at):
        return "=", at + 1
    return None


def increment_before(text: str, pos: int) -> int | None:
    """Where a prefix ``++``/``--`` right before ``pos`` starts, or None."""
    at = pos
    while at > 0 and text[at - 1].isspace():
        at -= 1
    if at >= 2 and text[at - 2 : at] in ("++", "--") and (at < 3 or text[at - 3] not in "+-"):
        return at - 2
    return None


def expression_end(text: str, pos: int) -> int | None:
    """The end of the assignment expression's right-hand side that starts at ``pos``: the
    first ``,``, ``;``, ``:`` of no ``?`` of its own, or closing bracket at its own depth.
    None where the text runs out or a bracket does not match."""
    depth = 0
    ternary = 0
    at = pos
    end = len(text)
    while at < end:
        at = skip_space(text, at)
        if at >= end:
            return None
        ch = text[at]
        if ch in "'\"":
            close = text.find(ch, at + 1)
            while close > 0 and text[close - 1] == "\\":
                close = text.find(ch, close + 1)
            if close < 0:
                return None
            at = close + 1
            continue
        if ch in _OPENING:
            depth += 1
        elif ch in _CLOSING:
            if depth == 0:
                return _trim(text, pos, at)
            depth -= 1
        elif depth == 0 and ch in ",;":
            return _trim(text, pos, at)
        elif depth == 0 and ch == "?":
            ternary += 1
        elif depth == 0 and ch == ":":
            if ternary == 0:
                return _trim(text, pos, at)
            ternary -= 1
        at += 1
    return None


def _trim(text: str, start: int, end: int) -> int | None:
    """``end`` moved back over trailing space; None for an empty expression."""
    while end > start and text[end - 1].isspace():
        end -= 1
    return end if end > start else None
