"""The guard an out-of-bounds access needs, written in the kernel's own terms.

``C[row * N + col]`` on a buffer of M·N elements is guarded by ``if (row < M && col < N)``,
not by a length: the index is taken apart into a row (the factor of the stride, ``N``) and a
column (the rest), and each is bounded by the name the kernel gives its bound (its scalar
arguments as launched, its defines, its macros: ``Trace.names``). Only where no name holds a
bound is it written as a number. ``tile[ly][lx]`` is bounded per dimension, ``vload4(i, p)``
by the vectors the buffer holds, ``x[i - 1]`` below (``i >= 1``, which holds for an unsigned
``i`` too) where the access fell before the buffer's start.
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
) -> str | None:
    """``if (...)`` that keeps the access ``text`` inside ``buffer``, given the lowest and
    highest element the trace saw it try (``low`` below 0: it fell before the start); None
    where the text does not show the index."""
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
    conditions = []
    if below:
        minus = [p for p, _ in parts if "-" in p]
        if not minus and len(access.subscripts) == 1 and len(parts) > 1:
            # No part subtracts: a negative column took the index below zero (`w[dy * 3 +
            # dx]` at dx = -1); `dy >= 0 && dx >= 0` would refuse w[2] (dy = 1, dx = -1).
            minus = [c_expr.text_of(access.text, access.subscripts[0])]
            conditions.append(f"{minus[0]} >= 0")
        else:
            conditions += [_at_least_zero(p) for p in (minus or [p for p, _ in parts])]
    if above or not below:
        conditions += [f"{p} < {b}" for p, b in parts]
    return f"if ({' && '.join(conditions)})"


def _at_least_zero(index: str) -> str:
    """The condition that ``index`` is not below zero, written so that it holds for an
    unsigned index too: ``i - 1`` as ``i >= 1`` (``i - 1 >= 0`` is always true where ``i``
    is a ``size_t`` or a ``uint``, whose ``0 - 1`` wraps to the largest value)."""
    node = c_expr.parse(index)
    while node is not None and node.kind == "paren":
        node = node.args[0]
    if node is not None and node.kind == "binary" and node.op == "-":
        low, high = node.args
        return f"{c_expr.text_of(index, low)} >= {c_expr.text_of(index, high)}"
    return f"{index} >= 0"


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
    return None if found is None else _Access(text, found[0], found[1])


def _search(text: str, node: Node, name: str) -> tuple[tuple[Node, ...], int] | None:
    if node.kind == "index":
        subs: list[Node] = []
        base = node
        while base.kind == "index":
            subs.insert(0, base.args[1])
            base = base.args[0]
        if _names(text, base, name):
            return tuple(subs), 1
    vector = _VLOAD.fullmatch(node.op) if node.kind == "call" else None
    if vector is not None:
        width = int(vector.group(2))
        at = 0 if vector.group(1) == "load" else 1
        if len(node.args) == at + 2 and _names(text, node.args[at + 1], name):
            return (node.args[at],), width
    if node.kind == "unary" and node.op == "*":
        inner = node.args[0]
        while inner.kind == "paren":
            inner = inner.args[0]
        if inner.kind == "binary" and inner.op == "+":
            a, b = inner.args
            if _names(text, a, name):
                return (b,), 1
            if _names(text, b, name):
                return (a,), 1
    for arg in node.args:
        found = _search(text, arg, name)
        if found is not None:
            return found
    return None


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
    """A factor's text, in parentheses where it is a sum."""
    return f"({text})" if any(op in text for op in "+-") else text


def _joined(parts: list[tuple[int, str]]) -> str:
    out = ""
    for sign, t in parts:
        t = _wrapped(t) if sign < 0 else t
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
