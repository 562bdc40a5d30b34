"""The guard an out-of-bounds access needs, written in the kernel's own terms.

``C[row * N + col]`` on a buffer of M·N elements is guarded by ``if (row < M && col < N)``,
not by a length: the index is taken apart into a row (the factor of the stride, ``N``) and a
column (the rest), and each is bounded by the name the kernel gives its bound (its scalar
arguments as launched, its defines, its macros: ``Trace.names``). Only where no name holds a
bound is it written as a number. ``tile[ly][lx]`` is bounded per dimension, ``vload4(i, p)``
by the vectors the buffer holds, ``x[i - 1]`` below (``i >= 1``, which holds for an unsigned
``i`` too) where the access fell before the buffer's start.

An index of an unsigned type (``uint at``, ``size_t`` from ``get_global_id(0) - 1``, a
``ushort``) is never below zero: ``at >= 0`` always holds, and the value that went below zero
wrapped to one far past the end. Such an index is bounded by the end instead (``at < N``),
the only test that excludes what it reached. Its type comes from the kernel's declarations
(``Trace.types``), or from the trace itself: an element just below 2^32 was reached by a
32-bit unsigned index that wrapped.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from explorer.trace import c_expr
from explorer.trace.c_expr import Node
from explorer.trace.recorded import BufferInfo

# Names that come in pairs (a stride and the other dimension), lower-cased: where several
# names hold a bound, the stride's partner is the one meant.
_PARTNERS = {
    a: b
    for x, y in (
        ("m", "n"),
        ("h", "w"),
        ("height", "width"),
        ("rows", "cols"),
        ("nrows", "ncols"),
        ("ny", "nx"),
        ("num_rows", "num_cols"),
    )
    for a, b in ((x, y), (y, x))
}
_VLOAD = re.compile(r"v(load|store)(\d+)")


@dataclass(frozen=True)
class _Access:
    """The subscripts of one access to a buffer, as the kernel wrote them."""

    text: str  # the access's text, which the nodes index
    subscripts: tuple[Node, ...]
    width: int  # elements one index stands for (vload4: 4)


def guard(
    text: str,
    buffer: BufferInfo,
    names: Mapping[str, int],
    low: int,
    high: int,
    types: Mapping[str, str] | None = None,
    wrapped: bool = False,
) -> str | None:
    """``if (...)`` that keeps the access ``text`` inside ``buffer``, given the lowest and
    highest element the trace saw it try (``low`` below 0: it fell before the start); None
    where the text does not show the index. ``types``: the integer type of each name the
    kernel declares (``c_expr.integer_types``); ``wrapped``: the element reached shows that
    the index, as the device computed it, was a 32-bit unsigned one that went below zero."""
    found = conditions(text, buffer, names, low, high, types, wrapped)
    return None if found is None else f"if ({' && '.join(found[0])})"


def advised(
    text: str,
    buffer: BufferInfo,
    names: Mapping[str, int],
    low: int,
    high: int,
    types: Mapping[str, str] | None = None,
    wrapped: bool = False,
) -> str | None:
    """The guard (:func:`guard`) in words: where an unsigned index went below zero, why it is
    bounded by the end; where the text does not show the index and it wrapped, that it
    cannot be tested against zero. None where nothing can be advised."""
    found = conditions(text, buffer, names, low, high, types, wrapped)
    if found is None:
        if wrapped and _find(text, buffer.name) is None:
            return (
                f"keep the index below {buffer.length} (the elements of {buffer.name}): an "
                "unsigned index cannot be tested against zero, since below zero it wraps to a "
                "large value"
            )
        return None
    tests, unsigned = found
    words = f"if ({' && '.join(tests)})"
    if unsigned:
        which = " and ".join(unsigned)
        words += (
            f" ({which} {'is' if len(unsigned) == 1 else 'are'} unsigned: "
            f"{which + ' >= 0' if len(unsigned) == 1 else 'a test against 0'} always holds, "
            "and below zero it wraps to a value past the end)"
        )
    return words


def conditions(
    text: str,
    buffer: BufferInfo,
    names: Mapping[str, int],
    low: int,
    high: int,
    types: Mapping[str, str] | None = None,
    wrapped: bool = False,
) -> tuple[list[str], list[str]] | None:
    """The conditions of :func:`guard`, and the unsigned indices among them bounded by the
    end where the access went below zero (no test against zero excludes what they
    reached)."""
    types = types or {}
    access = _find(text, buffer.name)
    if access is None:
        return None
    shape = tuple(buffer.shape) if len(buffer.shape) > 1 else (buffer.length,)
    if len(access.subscripts) == len(shape) > 1:
        parts = [
            (c_expr.text_of(access.text, s), _bound(n, names))
            for s, n in zip(access.subscripts, shape, strict=True)
        ]
    elif len(access.subscripts) == 1:
        parts = _linear(access, buffer.length, names)
    else:
        return None
    if all(_constant(p, names) for p, _ in parts):
        return None  # `parts[PARTS]`, `k[2]`: no condition keeps it inside; the index is wrong
    above = high + access.width - 1 >= buffer.length
    below = low < 0
    found: list[str] = []
    unsigned: list[str] = []
    # What wrapped is the whole index, where there is one subscript.
    whole = c_expr.text_of(access.text, access.subscripts[0]) if len(access.subscripts) == 1 else ""
    if below:
        minus = [(p, b) for p, b in parts if "-" in p]
        if not minus and whole and len(parts) > 1:
            # No part subtracts: a negative column took the index below zero (`w[dy * 3 +
            # dx]` at dx = -1); `dy >= 0 && dx >= 0` would refuse w[2] (dy = 1, dx = -1).
            bound = _bound(buffer.length // access.width, names, width=access.width)
            minus = [(whole, bound)]
        for p, b in minus or parts:
            test, wraps = _not_below(p, b, types, wrapped and p == whole)
            found.append(test)
            if wraps:
                unsigned.append(p)
    if above or not below:
        found += [f"{_operand(p)} < {b}" for p, b in parts]
    return list(dict.fromkeys(found)), unsigned


def _not_below(index: str, bound: str, types: Mapping[str, str], wrapped: bool) -> tuple[str, bool]:
    """The condition that ``index`` did not go below zero, and whether it is an unsigned one
    bounded by the end for it: ``i - 1`` as ``i >= 1`` (``i - 1 >= 0`` is always true where
    ``i`` is a ``size_t`` or a ``uint``, whose ``0 - 1`` wraps to the largest value);
    ``at`` of an unsigned type (``types``, or ``wrapped``: the device's value of it wrapped)
    as ``at < bound``, since ``at >= 0`` always holds; else ``index >= 0``."""
    node = c_expr.parse(index)
    while node is not None and node.kind == "paren":
        node = node.args[0]
    if node is not None and node.kind == "binary" and node.op == "-":
        low, high = node.args
        left, right = _operand(c_expr.text_of(index, low)), _operand(c_expr.text_of(index, high))
        return f"{left} >= {right}", False
    kind = None if node is None else _type(index, node, types)
    if wrapped or (kind is not None and kind[1]):
        return f"{_operand(index)} < {bound}", True
    return f"{_operand(index)} >= 0", False


# Integer types by (rank, unsigned): char, short, int, long; size_t as wide as a long (the
# 64-bit devices the explorer meets; its signedness is what matters here).
_RANKS = {
    "char": (1, False),
    "uchar": (1, True),
    "short": (2, False),
    "ushort": (2, True),
    "int": (3, False),
    "uint": (3, True),
    "long": (4, False),
    "ulong": (4, True),
    "size_t": (4, True),
}
_SIZE_T_CALLS = frozenset(
    (
        "get_global_id",
        "get_local_id",
        "get_group_id",
        "get_global_size",
        "get_local_size",
        "get_num_groups",
        "get_global_offset",
        "get_enqueued_local_size",
        "get_global_linear_id",
        "get_local_linear_id",
    )
)
_TRUTHS = frozenset(("<", ">", "<=", ">=", "==", "!=", "&&", "||"))


def _type(text: str, node: Node, types: Mapping[str, str]) -> tuple[int, bool] | None:
    """The integer type (rank, unsigned) of an expression by C's rules (promotions, the
    usual arithmetic conversions); None where a part's type is not known. A name or a cast
    keeps its own type: a ``ushort`` is never below zero, though ``us - 1`` (an int) is."""
    kind = node.kind
    if kind == "paren":
        return _type(text, node.args[0], types)
    if kind == "num":
        spelled = text[node.start : node.end].lower()
        if node.value is None or "." in spelled:
            return None
        hexadecimal = spelled.startswith("0") and len(spelled.rstrip("ul")) > 1
        unsigned = "u" in spelled or (hexadecimal and 1 << 31 <= node.value < 1 << 32)
        wide = "l" in spelled or node.value >= (1 << 32 if unsigned else 1 << 31)
        return (4 if wide else 3, unsigned)
    if kind == "name":
        return _RANKS.get(types.get(node.op, ""))
    if kind == "call":
        if node.op in _SIZE_T_CALLS:
            return _RANKS["size_t"]
        return _RANKS["uint"] if node.op == "get_work_dim" else None
    if kind == "cast":
        spelled = text[node.start : node.args[0].start].strip().removeprefix("(")
        return _RANKS.get(c_expr.integer_type(spelled.removesuffix(")")) or "")
    if kind == "unary" and node.op in ("-", "+", "~"):
        return _promoted(_type(text, node.args[0], types))
    if kind == "unary" and node.op in ("++", "--"):
        return _type(text, node.args[0], types)
    if kind == "unary" and node.op == "!":
        return _RANKS["int"]
    if kind == "binary":
        if node.op in _TRUTHS:
            return _RANKS["int"]
        left = _type(text, node.args[0], types)
        if node.op in ("<<", ">>"):
            return _promoted(left)
        return _common(left, _type(text, node.args[1], types))
    if kind == "cond":
        return _common(_type(text, node.args[1], types), _type(text, node.args[2], types))
    return None


def _promoted(t: tuple[int, bool] | None) -> tuple[int, bool] | None:
    """A type as arithmetic uses it: below an int, an int."""
    return None if t is None else (_RANKS["int"] if t[0] < 3 else t)


def _common(a: tuple[int, bool] | None, b: tuple[int, bool] | None) -> tuple[int, bool] | None:
    """The type two operands are brought to (C's usual arithmetic conversions)."""
    a, b = _promoted(a), _promoted(b)
    if a is None or b is None:
        return None
    if a[1] == b[1]:
        return max(a, b)
    unsigned, signed = (a, b) if a[1] else (b, a)
    return unsigned if unsigned[0] >= signed[0] else signed


def _constant(index: str, names: Mapping[str, int]) -> bool:
    """Whether an index is a number or a name the kernel gives one (a define, an argument)."""
    index = index.strip()
    return index.isdigit() or index in names


def _find(text: str, name: str) -> _Access | None:
    """The subscripts ``text`` applies to the buffer called ``name``."""
    root = c_expr.parse(text)
    if root is None:
        return None
    found = _search(text, root, name)
    return None if found is None else _Access(found[2], found[0], found[1])


def _search(text: str, node: Node, name: str) -> tuple[tuple[Node, ...], int, str] | None:
    """The subscripts of the access to ``name`` within ``node``, the elements one index
    stands for, and the text the subscripts index (``text``, or the offset of a pointer sum
    written anew: ``*(src + i + 1)`` is ``src[i + 1]``)."""
    if node.kind == "index":
        subs: list[Node] = []
        base = node
        while base.kind == "index":
            subs.insert(0, base.args[1])
            base = base.args[0]
        if _names(text, base, name):
            return tuple(subs), 1, text
    vector = _VLOAD.fullmatch(node.op) if node.kind == "call" else None
    if vector is not None:
        width = int(vector.group(2))
        at = 0 if vector.group(1) == "load" else 1
        if len(node.args) == at + 2 and _names(text, node.args[at + 1], name):
            return (node.args[at],), width, text
    if node.kind == "unary" and node.op == "*":
        offset = _offset(text, node.args[0], name)
        if offset is not None:
            return (offset[0],), 1, offset[1]
    for arg in node.args:
        found = _search(text, arg, name)
        if found is not None:
            return found
    return None


def _offset(text: str, node: Node, name: str) -> tuple[Node, str] | None:
    """The offset a pointer sum adds to the buffer ``name`` (``src + i + 1``: ``i + 1``,
    wherever the buffer stands among the terms), parsed from its own text; None where the
    sum does not add to the buffer once."""
    terms = c_expr.terms(node)
    mine = [sign for sign, term in terms if _names(text, term, name)]
    if mine != [1] or len(terms) < 2:
        return None
    rest = _joined(
        [(sign, c_expr.text_of(text, t)) for sign, t in terms if not _names(text, t, name)]
    )
    parsed = c_expr.parse(rest)
    return None if parsed is None else (parsed, rest)


def _names(text: str, node: Node, name: str) -> bool:
    """Whether ``node`` is the buffer itself (``C``, ``v.src``, ``(C)``)."""
    spelled = c_expr.text_of(text, node).replace(" ", "")
    return spelled == name or spelled.endswith(("." + name, ">" + name))


def _linear(access: _Access, length: int, names: Mapping[str, int]) -> list[tuple[str, str]]:
    """The parts of a one-dimensional index with their bounds: a row and a column where the
    index is ``row * stride + col`` over whole rows, else the index itself."""
    index = access.subscripts[0]
    text = access.text
    if access.width == 1:
        split = _split(text, index, length, names)
        if split is not None:
            return split
    vectors = length // access.width
    return [(c_expr.text_of(text, index), _bound(vectors, names, width=access.width))]


def _split(
    text: str, index: Node, length: int, names: Mapping[str, int]
) -> list[tuple[str, str]] | None:
    """``row * N + col`` as [(row, rows), (col, N)], the smallest stride that takes the
    index apart; None where no stride does."""
    terms = c_expr.terms(index)
    if any(_truth(f) for _, term in terms for f in c_expr.factors(term)):
        # `i - 2 + (i > 1) * 2`: a comparison's 0 or 1 is no row nor column; the index is
        # bounded as a whole.
        return None
    strides = []
    for _, term in terms:
        for f in c_expr.factors(term):
            v = c_expr.evaluate(f, names)
            if v is not None and 1 < v < length and length % v == 0:
                strides.append(v)
    for stride in sorted(set(strides)):
        parts = _rows(text, terms, stride, names)
        if parts is None:
            continue
        rows, cols, stride_text = parts
        rows, cols = _unless_constant(rows, names), _unless_constant(cols, names)
        if not rows:
            continue
        row_bound = _bound(length // stride, names, avoid=stride_text)
        out = [(rows, row_bound)]
        if cols:
            out.append((cols, stride_text))
        return out
    return None


def _unless_constant(text: str, names: Mapping[str, int]) -> str:
    """``text``, or nothing where it is a constant (a column offset of 1 needs no guard)."""
    node = c_expr.parse(text)
    return "" if node is None or c_expr.evaluate(node, names) is not None else text


def _rows(
    text: str, terms: list[tuple[int, Node]], stride: int, names: Mapping[str, int]
) -> tuple[str, str, str] | None:
    """The row and column texts of the index ``terms`` for one stride, and the stride as the
    kernel wrote it; None where a term cannot be placed (a multiple of the stride without
    the stride as a factor)."""
    rows: list[tuple[int, str]] = []
    cols: list[tuple[int, str]] = []
    stride_text = ""
    for sign, term in terms:
        fs = c_expr.factors(term)
        values = [c_expr.evaluate(f, names) for f in fs]
        known = 1
        for v in values:
            known *= 1 if v is None else v
        if all(v is not None for v in values):  # a constant term
            if known == stride:
                rows.append((sign, "1"))
                stride_text = stride_text or c_expr.text_of(text, term)
            elif known % stride == 0 and known:
                return None
            else:
                cols.append((sign, c_expr.text_of(text, term)))
            continue
        if known < stride:
            cols.append((sign, c_expr.text_of(text, term)))
            continue
        at = next((i for i, v in enumerate(values) if v == stride), None)
        if at is None or known % stride:
            return None
        stride_text = stride_text or c_expr.text_of(text, fs[at])
        rest = [c_expr.text_of(text, f) for i, f in enumerate(fs) if i != at]
        rows.append((sign, " * ".join(_wrapped(r) for r in rest) if len(rest) > 1 else rest[0]))
    return _joined(rows), _joined(cols), stride_text


def _wrapped(text: str) -> str:
    """A factor's text, in parentheses where it is a sum (or binds looser than a product)."""
    return f"({text})" if any(op in text for op in "+-") else _operand(text, "*")


# Operators that need no parentheses as an operand of a comparison, of a term added to a
# sum, and of a product.
_ABOVE = {"<": ("<<", ">>", "+", "-", "*", "/", "%"), "+": ("+", "-", "*", "/", "%"), "*": ("*",)}


def _operand(text: str, of: str = "<") -> str:
    """``text`` as an operand of ``of`` (a comparison, a sum or a product): in parentheses
    where its own operator binds looser (``i == 0`` in ``i - (i == 0)``, ``c ? a : b``
    before ``>= 0``), as the kernel's parentheses were taken off with the part's text."""
    node = c_expr.parse(text)
    if node is None or node.kind == "cond":
        return text if node is None else f"({text})"
    if node.kind == "binary" and node.op not in _ABOVE[of]:
        return f"({text})"
    return text


def _truth(node: Node) -> bool:
    """Whether ``node`` is a comparison or a logical operation (its value 0 or 1)."""
    while node.kind == "paren":
        node = node.args[0]
    return (node.kind == "binary" and node.op in _TRUTHS) or (
        node.kind == "unary" and node.op == "!"
    )


def _joined(parts: list[tuple[int, str]]) -> str:
    out = ""
    for sign, t in parts:
        t = _wrapped(t) if sign < 0 else _operand(t, "+")
        if not out:
            out = t if sign > 0 else f"-{t}"
        else:
            out += f" + {t}" if sign > 0 else f" - {t}"
    return out


def _bound(value: int, names: Mapping[str, int], avoid: str = "", width: int = 1) -> str:
    """``value`` as the kernel names it: a name holding it (the stride's partner where
    several do), two names' product, a name over the vector width; else the number."""
    same = [n for n, v in names.items() if v == value]
    if len(same) > 1 and avoid in same:
        same.remove(avoid)
    if len(same) > 1:
        partner = _PARTNERS.get(avoid.lower())
        paired = [n for n in same if n.lower() == partner]
        same = paired or same
    if len(same) == 1:
        return same[0]
    if same:
        return str(value)
    if width > 1:
        whole = [n for n, v in names.items() if v == value * width]
        if len(whole) == 1:
            return f"{whole[0]} / {width}"
    listed = list(names.items())
    pairs = [
        f"{a} * {b}"
        for i, (a, va) in enumerate(listed)
        for b, vb in listed[i:]
        if va > 1 and vb > 1 and va * vb == value
    ]
    return pairs[0] if len(pairs) == 1 else str(value)
