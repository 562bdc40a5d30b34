"""A small reader of OpenCL C expressions as a finding quotes them: an access's text
(``C[row * N + col]``, ``vload4(i, p)``) and a macro's value (``(TS * 4)``).

Findings speak in the kernel's own terms: the guard an out-of-bounds access needs is written
with the variables of its index and the names the kernel gives its bounds. That takes the
index apart (its terms, the factors of each) while keeping the text of every part as the
kernel wrote it, and the integers a name stands for. Text only: no Qt, no OpenCL, no numpy.
Anything it does not read is None, never an exception: a finding then says less.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

_TOKEN = re.compile(
    r"\s*(?:(?P<num>0[xX][0-9a-fA-F]+[uUlL]*|\d+\.\d*(?:[eE][-+]?\d+)?[fFhH]?|\.\d+"
    r"(?:[eE][-+]?\d+)?[fFhH]?|\d+(?:[eE][-+]?\d+)[fFhH]?|\d+[uUlL]*)"
    r"|(?P<name>[A-Za-z_]\w*)"
    r"|(?P<op><<|>>|<=|>=|==|!=|&&|\|\||->|\+\+|--|[-+*/%<>&|^!~?:()\[\],.]))"
)
_TYPES = frozenset(
    [
        "char",
        "uchar",
        "short",
        "ushort",
        "int",
        "uint",
        "long",
        "ulong",
        "size_t",
        "ptrdiff_t",
        "intptr_t",
        "uintptr_t",
        "unsigned",
        "signed",
        "float",
        "double",
        "half",
        "bool",
        "const",
    ]
)
# Binary operators by precedence, loosest first.
_LEVELS: tuple[tuple[str, ...], ...] = (
    ("||",),
    ("&&",),
    ("|",),
    ("^",),
    ("&",),
    ("==", "!="),
    ("<", ">", "<=", ">="),
    ("<<", ">>"),
    ("+", "-"),
    ("*", "/", "%"),
)


@dataclass(frozen=True)
class Node:
    """One part of an expression: ``kind`` is num, name, call, index, member, unary,
    binary, paren, cast or cond; ``op`` the operator (a call: the function's name);
    ``start``/``end`` its stretch of the text."""

    kind: str
    start: int
    end: int
    op: str = ""
    args: tuple[Node, ...] = ()
    value: int | None = None  # a number's value (None for a float literal)


class _Tokens:
    def __init__(self, text: str) -> None:
        self.text = text
        self.items: list[tuple[str, str, int, int]] = []  # kind, text, start, end
        pos = 0
        while pos < len(text):
            if text[pos:].strip() == "":
                break
            m = _TOKEN.match(text, pos)
            if m is None or m.end() == pos:
                raise ValueError(text[pos:])
            kind = m.lastgroup or "op"
            self.items.append((kind, m.group(kind), m.start(kind), m.end(kind)))
            pos = m.end()
        self.at = 0

    def peek(self, k: int = 0) -> tuple[str, str, int, int] | None:
        i = self.at + k
        return self.items[i] if i < len(self.items) else None

    def take(self, op: str | None = None) -> tuple[str, str, int, int]:
        item = self.peek()
        if item is None or (op is not None and (item[0] != "op" or item[1] != op)):
            raise ValueError(op or "end")
        self.at += 1
        return item

    def is_op(self, *ops: str) -> bool:
        item = self.peek()
        return item is not None and item[0] == "op" and item[1] in ops


def parse(text: str) -> Node | None:
    """The expression ``text`` holds, or None where it is not one this reader knows."""
    try:
        tokens = _Tokens(text)
        node = _conditional(tokens)
        if tokens.peek() is not None:
            return None
        return node
    except (ValueError, RecursionError):
        return None


def _conditional(t: _Tokens) -> Node:
    cond = _binary(t, 0)
    if not t.is_op("?"):
        return cond
    t.take("?")
    yes = _conditional(t)
    t.take(":")
    no = _conditional(t)
    return Node("cond", cond.start, no.end, "?", (cond, yes, no))


def _binary(t: _Tokens, level: int) -> Node:
    if level == len(_LEVELS):
        return _unary(t)
    left = _binary(t, level + 1)
    while t.is_op(*_LEVELS[level]):
        op = t.take()[1]
        right = _binary(t, level + 1)
        left = Node("binary", left.start, right.end, op, (left, right))
    return left


def _unary(t: _Tokens) -> Node:
    item = t.peek()
    if item is None:
        raise ValueError("end")
    if item[0] == "op" and item[1] in ("-", "+", "!", "~", "*", "&", "++", "--"):
        t.take()
        inner = _unary(t)
        return Node("unary", item[2], inner.end, item[1], (inner,))
    if item[0] == "op" and item[1] == "(" and _is_cast(t):
        t.take("(")
        while not t.is_op(")"):
            t.take()
        t.take(")")
        inner = _unary(t)
        return Node("cast", item[2], inner.end, "", (inner,))
    return _postfix(t)


def _is_cast(t: _Tokens) -> bool:
    """Whether the parenthesis at hand opens a cast: ``(int)``, ``(unsigned int)``,
    ``(float4)``, ``(__global float*)``."""
    k = 1
    seen = False
    while (item := t.peek(k)) is not None:
        if item[0] == "op" and item[1] == ")":
            return seen
        if item[0] == "op" and item[1] == "*":
            k += 1
            continue
        if item[0] != "name":
            return False
        word = item[1]
        base = re.sub(r"(2|3|4|8|16)$", "", word)
        if not (word in _TYPES or base in _TYPES or word.startswith("__") or word.endswith("_t")):
            return False
        seen = True
        k += 1
    return False


def _postfix(t: _Tokens) -> Node:
    node = _primary(t)
    while True:
        if t.is_op("["):
            t.take("[")
            inner = _conditional(t)
            close = t.take("]")
            node = Node("index", node.start, close[3], "[]", (node, inner))
        elif t.is_op("(") and node.kind == "name":
            t.take("(")
            args: list[Node] = []
            while not t.is_op(")"):
                args.append(_conditional(t))
                if t.is_op(","):
                    t.take(",")
            close = t.take(")")
            node = Node("call", node.start, close[3], node.op, tuple(args))
        elif t.is_op(".", "->"):
            op = t.take()[1]
            field = t.take()
            if field[0] != "name":
                raise ValueError(field[1])
            node = Node("member", node.start, field[3], op + field[1], (node,))
        elif t.is_op("++", "--"):
            close = t.take()
            node = Node("unary", node.start, close[3], close[1], (node,))
        else:
            return node


def _primary(t: _Tokens) -> Node:
    kind, text, start, end = t.take()
    if kind == "num":
        return Node("num", start, end, value=_integer(text))
    if kind == "name":
        return Node("name", start, end, text)
    if kind == "op" and text == "(":
        inner = _conditional(t)
        close = t.take(")")
        return Node("paren", start, close[3], "()", (inner,))
    raise ValueError(text)


def _integer(text: str) -> int | None:
    digits = text.rstrip("uUlL")
    try:
        if digits.lower().startswith("0x"):
            return int(digits, 16)
        if re.fullmatch(r"0[0-7]+", digits):
            return int(digits, 8)
        return int(digits) if digits.isdigit() else None
    except ValueError:
        return None


def text_of(source: str, node: Node) -> str:
    """The node's stretch of ``source``, its surrounding parentheses taken off."""
    while node.kind == "paren":
        node = node.args[0]
    return " ".join(source[node.start : node.end].split())


def evaluate(node: Node, names: Mapping[str, int]) -> int | None:
    """The node's integer value, where every name in it has one in ``names`` (C's integer
    division and remainder, truncated toward zero); None otherwise, and where a value
    leaves 64 bits (no C integer holds it) or the expression nests too deep to walk."""
    try:
        return _evaluate(node, names)
    except RecursionError:  # `1 + 1 + ... + 1` of thousands of terms: a left-deep tree
        return None


# The widest C integer's bits: a value beyond them is none a kernel computes (and a source's
# macros squaring each other would otherwise grow without bound, a line at a time).
_BITS = 64


def _evaluate(node: Node, names: Mapping[str, int]) -> int | None:
    if node.kind == "num":
        return node.value
    if node.kind == "name":
        return names.get(node.op)
    if node.kind in ("paren", "cast"):
        return _evaluate(node.args[0], names)
    if node.kind == "unary" and node.op in ("-", "+", "~", "!"):
        v = _evaluate(node.args[0], names)
        if v is None:
            return None
        return {"-": -v, "+": v, "~": ~v, "!": int(not v)}[node.op]
    if node.kind == "cond":
        c = _evaluate(node.args[0], names)
        return None if c is None else _evaluate(node.args[1 if c else 2], names)
    if node.kind != "binary":
        return None
    a, b = _evaluate(node.args[0], names), _evaluate(node.args[1], names)
    if a is None or b is None:
        return None
    return _apply(node.op, a, b)


def _apply(op: str, a: int, b: int) -> int | None:
    value = _applied(op, a, b)
    return None if value is None or abs(value) >> _BITS else value


def _applied(op: str, a: int, b: int) -> int | None:
    if op in ("/", "%"):
        if b == 0:
            return None
        q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
        return q if op == "/" else a - b * q
    if op in ("<<", ">>"):
        if not 0 <= b < 64:
            return None
        return a << b if op == "<<" else a >> b
    table = {
        "+": a + b,
        "-": a - b,
        "*": a * b,
        "&": a & b,
        "|": a | b,
        "^": a ^ b,
        "<": int(a < b),
        ">": int(a > b),
        "<=": int(a <= b),
        ">=": int(a >= b),
        "==": int(a == b),
        "!=": int(a != b),
        "&&": int(bool(a) and bool(b)),
        "||": int(bool(a) or bool(b)),
    }
    return table.get(op)


def terms(node: Node) -> list[tuple[int, Node]]:
    """The terms of a sum, each with its sign: ``a*N + b - 1`` is (+a*N), (+b), (-1)."""
    while node.kind == "paren":
        node = node.args[0]
    if node.kind == "binary" and node.op in ("+", "-"):
        left = terms(node.args[0])
        right = terms(node.args[1])
        if node.op == "-":
            right = [(-sign, n) for sign, n in right]
        return left + right
    return [(1, node)]


def factors(node: Node) -> list[Node]:
    """The factors of a product: ``(t * TS + ty) * K`` is (t * TS + ty), K."""
    while node.kind == "paren":
        inner = node.args[0]
        if inner.kind == "binary" and inner.op == "*":
            node = inner
        else:
            break
    if node.kind == "binary" and node.op == "*":
        return factors(node.args[0]) + factors(node.args[1])
    return [node]


def names_in(node: Node) -> set[str]:
    """Every name the node uses (a call's function not counted)."""
    found = {node.op} if node.kind == "name" else set()
    for arg in node.args:
        found |= names_in(arg)
    return found


_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(?![\w(])[ \t]*(.*)$", re.M)
_INTEGER_TYPES = re.compile(r"^(?:unsigned\s+)?(?:u?char|u?short|u?int|u?long|size_t|unsigned)$")


def integer_names(
    source: str,
    defines: Mapping[str, object],
    scalars: Sequence[tuple[str, str, object]],
) -> tuple[tuple[str, int], ...]:
    """The integers a kernel names, for findings to speak its terms: its integer scalar
    arguments as launched (``scalars``: name, type, value), the defines of its build, then
    the object-like macros of its source whose value is an integer expression of those."""
    found: dict[str, int] = {}
    for name, type_text, value in scalars:
        if isinstance(value, tuple) and len(value) == 1:  # one lane
            value = value[0]
        spelled = " ".join(type_text.replace("const", "").split())
        number = value if isinstance(value, int | float) else None
        if number is not None and float(number).is_integer() and _INTEGER_TYPES.match(spelled):
            found.setdefault(name, int(number))
    for name, value in defines.items():
        parsed = parse(str(value))
        v = None if parsed is None else evaluate(parsed, found)
        if v is not None:
            found.setdefault(name, v)
    for m in _DEFINE.finditer(_no_comments(source)):
        name, body = m.group(1), m.group(2).strip()
        if name in found or not body or name.startswith("__"):
            continue
        parsed = parse(body)
        v = None if parsed is None else evaluate(parsed, found)
        if v is not None:
            found[name] = v
    return tuple(found.items())


def _no_comments(source: str) -> str:
    """The source with its comments blanked, lines kept."""
    return re.sub(
        r"/\*.*?\*/|//[^\n]*",
        lambda m: re.sub(r"[^\n]", " ", m.group(0)),
        source,
        flags=re.S,
    )


# The scalar integer types a declaration may spell, longest first, and the word each is
# known by (``integer_type``).
_SPELLED_TYPES = (
    r"unsigned\s+(?:char|short|int|long)|signed\s+(?:char|short|int|long)|unsigned|signed"
    r"|u?char|u?short|u?int|u?long|size_t|ptrdiff_t|u?intptr_t"
)
_DECLARED = re.compile(
    rf"(?<![\w.])(?:(?:const|volatile|__private|private|register)\s+)*({_SPELLED_TYPES})\s+"
    r"(?:const\s+)?(?=[A-Za-z_])"
)
_CANONICAL = {
    "unsigned": "uint",
    "signed": "int",
    "ptrdiff_t": "long",
    "intptr_t": "long",
    "uintptr_t": "ulong",
}
_KEYWORDS = frozenset(("const", "volatile", "restrict", "__global", "__local", "__constant"))


def integer_type(spelled: str) -> str | None:
    """The integer type a spelling names, as OpenCL calls it (``unsigned int`` is ``uint``,
    ``size_t`` stays ``size_t``); None for any other type."""
    words = spelled.replace("const", " ").split()
    if len(words) == 2 and words[0] in ("unsigned", "signed"):
        word = ("u" if words[0] == "unsigned" else "") + words[1]
    elif len(words) == 1:
        word = _CANONICAL.get(words[0], words[0])
    else:
        return None
    ints = ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "size_t")
    return word if word in ints else None


def integer_types(source: str) -> tuple[tuple[str, str], ...]:
    """The scalar integer type each name of the source is declared with (its parameters, its
    variables: ``uint at = ...``, ``for (size_t i = 0; ...)``, ``int a, b;``), as
    :func:`integer_type` words; a name declared with two different types anywhere is left
    out (which one an expression means is not known from the text)."""
    text = _no_comments(source)
    found: dict[str, str | None] = {}
    for m in _DECLARED.finditer(text):
        word = integer_type(m.group(1))
        if word is None:
            continue
        at = m.end()
        while True:
            name = re.compile(r"([A-Za-z_]\w*)\s*").match(text, at)
            if name is None or name.group(1) in _KEYWORDS:
                break
            after = text[name.end() : name.end() + 1]
            if after not in (",", ";", "=", ")"):
                break  # a function (`uint f(`), an array, or no declaration at all
            n = name.group(1)
            found[n] = word if found.get(n, word) == word else None
            at = _declarator_end(text, name.end())
            if at >= len(text) or text[at] != ",":
                break
            at += 1
            while at < len(text) and text[at].isspace():
                at += 1
    return tuple((n, t) for n, t in found.items() if t is not None)


def _declarator_end(text: str, at: int) -> int:
    """Where one declarator's initialiser ends: at the ``,``, ``;`` or ``)`` outside any
    bracket."""
    depth = 0
    while at < len(text):
        c = text[at]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                return at
            depth -= 1
        elif c in ",;" and depth == 0:
            return at
        at += 1
    return at
