"""A first guess of a custom kernel's declarations, and the header that writes them down.

The open-kernel dialog starts from what the source says: a pointer's element type, whether
it is ``const`` or ``__constant`` and whether the kernel writes through it (the front end's
access sites), ``__local`` pointers, scalars and the dimensions the kernel asks
``get_global_id`` about. Integer scalars become the named sizes (a kernel's ``n`` is almost
always its problem size). The person corrects the guesses; :func:`custom_header` writes the
result as the ``family = "custom"`` header that :mod:`explorer.description.declarations` reads.
"""

from __future__ import annotations

import keyword
import math
import re
from dataclasses import dataclass

from explorer.description.declarations import (
    BufferDecl,
    Declaration,
    DeclarationError,
    LocalDecl,
    SamplerDecl,
    ScalarDecl,
)
from explorer.description.elements import ELEMENT_TYPES
from explorer.engine.header import toml_writer
from explorer.engine.header.signature import Parameter, image_refusal, kernel_signature
from explorer.frontend import AccessKind, ParseError, parse

SIZE_TYPES = ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "size_t")
# Bytes and booleans passed by value are flags more often than sizes.
_FLAG_TYPES = ("char", "uchar")
_WRITES = {
    AccessKind.WRITE,
    AccessKind.READ_MODIFY_WRITE,
    AccessKind.ATOMIC,
    AccessKind.VSTORE,
    AccessKind.ASYNC_COPY_WRITE,
}
_READS = {
    AccessKind.READ,
    AccessKind.READ_MODIFY_WRITE,
    AccessKind.ATOMIC,
    AccessKind.VLOAD,
    AccessKind.ASYNC_COPY_READ,
}
_DIMENSION = re.compile(r"\bget_(?:global|local|group)_id\s*\(\s*([012])\s*\)")
_REQUIRED = re.compile(
    r"reqd_work_group_size\s*\(\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\)", re.IGNORECASE
)
# A #define that names a work-group's side: TILE, TS, BLOCK_SIZE, WG_SIZE, LOCAL_SIZE ...
_TILE_DEFINE = re.compile(
    r"^[ \t]*#[ \t]*define[ \t]+(\w*(?:TILE|BLOCK|WG|WORKGROUP|GROUP|LOCAL)\w*|TS|BS)"
    r"[ \t]+\(?\s*(\d+)\s*\)?[ \t]*$",
    re.MULTILINE | re.IGNORECASE,
)
# A whole-number #define, and a __local array declared in a kernel's body with its subscripts.
_INT_DEFINE = re.compile(
    r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+\(?\s*(\d+)[uU]?\s*\)?[ \t]*$", re.MULTILINE
)
_LOCAL_ARRAY = re.compile(
    r"\b(?:__local|local)\s+(?:(?:const|volatile|unsigned|signed)\s+)*\w+\s+\w+\s*"
    r"((?:\[[^\]]+\]\s*)+)"
)
_LOCALS = ("L0", "L1", "L2")
_DEFAULT_LOCAL = {1: ("64",), 2: ("8", "8"), 3: ("4", "4", "4")}


@dataclass(frozen=True)
class CustomGuess:
    """Declarations for every parameter, the named sizes and the NDRange."""

    sizes: tuple[tuple[str, int], ...]
    params: tuple[Declaration, ...]
    global_size: tuple[str, ...]
    local_size: tuple[str, ...]


def dimensions(source: str) -> int:
    """How many NDRange dimensions the kernel asks about (1 when it asks about none)."""
    used = [int(d) for d in _DIMENSION.findall(source)]
    return max(used, default=0) + 1


def _uses(source: str, kernel: str) -> tuple[set[str], set[str], set[str]]:
    """Parameters read, written, and passed on to a helper (whose accesses are not the
    kernel's own: the guess stays on the safe side for them)."""
    try:
        parsed = parse(source, {}, "kernel.cl", strict=False)
    except ParseError:
        return set(), set(), set()
    read: set[str] = set()
    written: set[str] = set()
    for site in parsed.accesses:
        if site.function != kernel:
            continue
        if site.kind in _WRITES:
            written.update(site.roots or (site.base,))
        if site.kind in _READS:
            read.update(site.roots or (site.base,))
    passed = {
        root for call in parsed.calls if call.function == kernel for roots in call.argument_roots
        for root in roots
    }  # fmt: skip
    return read, written, passed


def _accumulated(source: str, kernel: str) -> set[str]:
    """Buffers the kernel only adds into (``+=``, ``++``, atomics, never a plain store): they
    are accumulators, and start from zero."""
    try:
        parsed = parse(source, {}, "kernel.cl", strict=False)
    except ParseError:
        return set()
    added: set[str] = set()
    stored: set[str] = set()
    for site in parsed.accesses:
        if site.function != kernel:
            continue
        roots = site.roots or (site.base,)
        if site.kind in (AccessKind.READ_MODIFY_WRITE, AccessKind.ATOMIC):
            added.update(roots)
        elif site.kind in _WRITES:
            stored.update(roots)
    return added - stored


def local_size_of(source: str, kernel: str, dims: int) -> tuple[str, ...]:
    """The local size the kernel needs (:func:`required_local_size`), else a default."""
    return required_local_size(source, kernel, dims) or _DEFAULT_LOCAL[dims]


def required_local_size(source: str, kernel: str, dims: int) -> tuple[str, ...] | None:
    """The local size the kernel's own text asks for, or None where it asks for none: its
    ``reqd_work_group_size``; else a ``__local`` tile it declares, sized by a ``#define`` or
    a number (``tile[TS + 2][TS + 2]`` with ``TS`` 8 is a group of 8×8: the group fills the
    tile's inside, the halo or padding is the part beyond); else a ``#define``d tile side
    (``TILE``, ``TS``, ``BLOCK_SIZE`` ...) in every dimension."""
    head = _declaration_of(source, kernel)
    required = _REQUIRED.search(head)
    if required:
        return tuple(required.group(i + 1) for i in range(dims))
    defines = {name: int(value) for name, value in _INT_DEFINE.findall(source)}
    for subscripts in _LOCAL_ARRAY.findall(_body_of(source, kernel)):
        sides = [_side(s, defines) for s in re.findall(r"\[([^\]]+)\]", subscripts)]
        if len(sides) != dims or None in sides:
            continue
        # tile[y][x]: the first subscript is the row (dimension 1), the last the column.
        chosen = tuple(reversed([side for side in sides if side is not None]))
        if math.prod(chosen) <= 1024:
            return tuple(str(side) for side in chosen)
    for _, value in _TILE_DEFINE.findall(source):
        side = int(value)
        if 1 <= side <= 1024 and side & (side - 1) == 0 and side**dims <= 1024:
            return tuple(value for _ in range(dims))
    return None


def _side(subscript: str, defines: dict[str, int]) -> int | None:
    """The work-group side a local array's subscript is sized for: the largest define it
    names (``TS + 2 * HALO`` is ``TS``), else its number where that is a power of two or
    one or two past one (a padded or haloed tile of 16 is 17 or 18)."""
    named = [defines[word] for word in re.findall(r"[A-Za-z_]\w*", subscript) if word in defines]
    if named:
        side = max(named)
        return side if 1 <= side <= 1024 else None
    if not subscript.strip().isdigit():
        return None
    number = int(subscript)
    for side in (number, number - 1, number - 2):
        if side >= 1 and side & (side - 1) == 0:
            return side
    return None


def _body_of(source: str, kernel: str) -> str:
    """The text of ``kernel``'s body, from its opening brace to the matching closing one
    (empty where it is not found)."""
    match = re.search(rf"\b{re.escape(kernel)}\s*\(", source)
    if match is None:
        return ""
    start = source.find("{", match.end())
    if start < 0:
        return ""
    depth = 0
    for index in range(start, len(source)):
        if source[index] == "{":
            depth += 1
        elif source[index] == "}":
            depth -= 1
            if depth == 0:
                return source[start : index + 1]
    return source[start:]


def _declaration_of(source: str, kernel: str) -> str:
    """The text of ``kernel``'s declaration up to its parameter list (where its attributes
    are written)."""
    match = re.search(rf"\b{re.escape(kernel)}\s*\(", source)
    if match is None:
        return ""
    start = max(source.rfind(";", 0, match.start()), source.rfind("}", 0, match.start()))
    return source[start + 1 : match.end()]


def _element(p: Parameter) -> tuple[str, str]:
    """A declarable element type and the factor its count is multiplied by (a struct is
    declared as its bytes)."""
    base = p.element_type.rstrip("0123456789") or p.element_type
    if base in ELEMENT_TYPES:
        return p.element_type, ""
    return "uchar", f" * {max(1, p.element_size)}"


def guess_declarations(source: str, kernel: str) -> CustomGuess:
    """A declaration for every parameter of ``kernel``; a DeclarationError for a parameter
    no custom kernel can take (an image)."""
    params = kernel_signature(source, kernel)
    dims = dimensions(source)
    size_params = [
        p
        for p in params
        if p.space == "scalar" and p.scalar_type in SIZE_TYPES and p.scalar_type not in _FLAG_TYPES
    ]
    # A size is a name in expressions: one spelled like a Python keyword (Rodinia's `in`)
    # gets an underscore, and its parameter takes that size's value.
    size_of = {p.name: f"{p.name}_" if keyword.iskeyword(p.name) else p.name for p in size_params}
    names = list(size_of.values()) or ["N"]
    default = 1024 if len(names) == 1 else 64
    sizes = tuple((name, default) for name in names)
    global_size = tuple(names[min(d, len(names) - 1)] for d in range(dims))
    count = " * ".join(dict.fromkeys(global_size))
    local_count = " * ".join(_LOCALS[:dims])
    read, written, passed = _uses(source, kernel)
    added = _accumulated(source, kernel)
    # A two-dimensional grid over a buffer of both sizes: rows of the second, columns of the
    # first (``y * WIDTH + x``), shown as a matrix.
    matrix = tuple(reversed(global_size)) if dims == 2 and len(set(global_size)) == 2 else ()
    declared: list[Declaration] = []
    for p in params:
        if p.is_image:
            raise DeclarationError(
                image_refusal(p, kernel)
                if p.space == "image" and not p.image_dims
                else f"parameter {p.name!r} of {kernel} is an "
                f"{p.image_type or 'sampler_t'}: the form does not guess images and samplers; "
                'declare them in the kernel\'s header (image = "float", width, height; '
                'sampler = "clamp_to_edge"), as docs/custom.md says'
            )
        if p.space == "scalar":
            if p in size_params:
                declared.append(ScalarDecl(p.name, p.scalar_type or "int", (size_of[p.name],)))
            elif _element(p)[1]:
                # A struct passed by value: its bytes, zero (a zero in every field, whatever
                # its type), for the person to fill in.
                declared.append(ScalarDecl(p.name, "uchar", ("0",) * max(1, p.element_size)))
            else:
                value = "1" if (p.scalar_type or "") in SIZE_TYPES else "1.5"
                type_name = p.element_type if p.vector_width > 1 else p.scalar_type or "float"
                declared.append(ScalarDecl(p.name, type_name, (value,)))
            continue
        type_name, factor = _element(p)
        if p.space == "local":
            declared.append(LocalDecl(p.name, type_name, f"{local_count}{factor}"))
            continue
        writes = p.name in written or (p.name in passed and not p.is_const)
        if p.is_const or p.space == "constant" or not writes:
            access = "read"
        elif p.name in read or p.name in passed:
            access = "readwrite"
        else:
            access = "write"
        starts_at_zero = access == "write" or (access == "readwrite" and p.name in added)
        declared.append(
            BufferDecl(
                name=p.name,
                type=type_name,
                count=f"{count}{factor}" if factor else count,
                contents="zeros" if starts_at_zero else "random",
                access=access,
                result=access != "read",
                shape=matrix if matrix and not factor and p.vector_width == 1 else (),
            )
        )
    return CustomGuess(sizes, tuple(declared), global_size, local_size_of(source, kernel, dims))


def _number_or_text(text: str) -> int | float | str:
    """A scalar's value as the header writes it: a number where the text is one, else the
    text (an expression of the sizes)."""
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def custom_header(
    name: str,
    kernel: str,
    guess: CustomGuess,
    reference: str = "",
    terms: str = "1",
) -> str:
    """The ``family = "custom"`` catalog header of these declarations (a block comment that
    starts the file); ``reference`` is a numpy expression for the first result, or empty."""
    args: dict[str, dict[str, object]] = {}
    for p in guess.params:
        if isinstance(p, LocalDecl):
            args[p.name] = {"local": p.type, "count": p.count}
        elif isinstance(p, ScalarDecl):
            values = [_number_or_text(v) for v in p.value]
            args[p.name] = {"scalar": p.type, "value": values[0] if len(values) == 1 else values}
        elif isinstance(p, SamplerDecl):
            args[p.name] = {"sampler": p.address, "normalized": p.normalized, "filter": p.filter}
        else:
            entry: dict[str, object] = {"buffer": p.type, "count": p.count}
            if p.is_image:
                entry = {"image": p.image, "channels": p.channels}
                entry |= dict(zip(("width", "height", "depth"), p.image_size, strict=False))
            if p.contents in ("constant", "iota"):
                entry |= {"contents": p.contents, "value": p.value}
            elif p.contents != "random":
                entry["contents"] = p.contents
            entry["access"] = p.access
            if p.result:
                entry["result"] = True
            if p.shape:
                entry["shape"] = list(p.shape)
            if p.writes:
                entry["writes"] = p.writes
            args[p.name] = entry
    fields: dict[str, object] = {
        "name": name,
        "family": "custom",
        "kernel": kernel,
        "global": list(guess.global_size),
        "local": list(guess.local_size),
        "sizes": dict(guess.sizes),
    }
    if args:
        fields["args"] = args
    if reference.strip():
        fields["reference"] = {"numpy": reference.strip(), "terms": terms}
    fields["about"] = {"source": "your own kernel"}
    return toml_writer.header(fields)
