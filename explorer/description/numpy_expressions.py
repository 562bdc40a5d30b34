"""Safe evaluation of a kernel's reference: a numpy expression over its named buffers.

A header says ``numpy = "alpha * x + y"`` or ``numpy = "A @ B"``. The text is parsed with
the same :mod:`ast` front as the integer header expressions (:mod:`.expressions`), with room
for a long reference (bounded by its terms and nesting, not by a character count), and walked
over a whitelist: arithmetic, comparisons, subscripts and slices (``None`` and ``newaxis``
add an axis), ``.T``, and calls to the numpy functions below. No other attribute, no keyword
other than ``axis`` and ``mode``, no ``eval``. A buffer may be named like a Python keyword
(``in``): such names are read as names.

:func:`evaluate_reference` computes in float64 (float inputs promoted, integers widened to 64
bits) and gives, beside the value, the sum of the absolute values of the terms behind each
element (subtraction adds magnitudes; a product multiplies them): the bound the tolerance is
scaled by.
"""

from __future__ import annotations

import ast
import io
import keyword
import math
import operator
import tokenize
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from explorer.description.expressions import ExpressionError, _parse

# A reference may be a long formula (a stencil written out): bounded by its terms.
MAX_LENGTH = 100_000
MAX_DEPTH = 100
MAX_NODES = 20_000

_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.MatMult: operator.matmul,
    ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
}
_UNARY: dict[type, Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Invert: operator.invert,
}
_COMPARE: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}
FUNCTIONS: dict[str, Callable[..., Any]] = {
    name: getattr(np, name)
    for name in (
        "abs", "arange", "ceil", "clip", "cos", "cumsum", "dot", "exp", "floor", "fmax",
        "fmin", "log", "matmul", "max", "maximum", "mean", "min", "minimum", "outer",
        "prod", "repeat", "reshape", "sin", "sort", "sqrt", "sum", "tanh", "tile",
        "transpose", "where", "zeros_like", "ones_like", "full_like", "flip", "roll",
        "rint", "round", "bitwise_and", "bitwise_or", "bitwise_xor", "right_shift",
        "left_shift", "concatenate", "stack", "einsum", "pad", "diff", "cumprod",
        "expand_dims", "squeeze", "ravel", "trace", "diag", "tril", "triu", "sign", "ones",
        "zeros", "full", "eye",
    )
}  # fmt: skip
# Functions that only move, gather or add their arguments' elements: the magnitude of their
# result is the same function of the magnitudes of their array arguments.
_ADDITIVE = {
    "cumsum", "dot", "matmul", "mean", "outer", "repeat", "reshape", "sum", "tile",
    "transpose", "flip", "roll", "concatenate", "stack", "einsum", "pad", "expand_dims",
    "squeeze", "ravel", "trace", "diag", "tril", "triu",
}  # fmt: skip
_KEYWORDS = ("axis", "mode")
_SUMS = (ast.Add, ast.Sub)
_PRODUCTS = (ast.Mult, ast.Div)
_CHAINED = (*_SUMS, *_PRODUCTS)
_MANGLE = "__kw_"


def evaluate_array(expression: str, names: Mapping[str, Any]) -> np.ndarray:
    """The value of ``expression`` over ``names`` (arrays and numbers), as an array."""
    tree, scope = _prepared(expression, names)
    try:
        return np.asarray(_Evaluator(scope, expression).value(tree.body))
    except ExpressionError:
        raise
    except (ArithmeticError, ValueError, TypeError, IndexError) as exc:
        raise ExpressionError(f"{expression!r} fails: {exc}") from None


def evaluate_reference(expression: str, names: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """The value of ``expression`` in float64 and, element by element, the sum of the
    absolute values of the terms it adds up (the tolerance's Σ|terms|)."""
    tree, scope = _prepared(expression, _widened(names))
    evaluator = _Evaluator(scope, expression)
    try:
        value = np.asarray(evaluator.value(tree.body), dtype=np.float64)
        magnitude = np.asarray(evaluator.magnitude(tree.body), dtype=np.float64)
    except ExpressionError:
        raise
    except (ArithmeticError, ValueError, TypeError, IndexError) as exc:
        raise ExpressionError(f"{expression!r} fails: {exc}") from None
    magnitude = np.broadcast_to(magnitude, value.shape) if magnitude.size == 1 else magnitude
    if magnitude.shape != value.shape:
        magnitude = np.abs(value)
    return value, np.maximum(magnitude, np.abs(value))


def _widened(names: Mapping[str, Any]) -> dict[str, Any]:
    """Floats in float64 and integers in 64 bits: a float32 reference is not exact."""
    out: dict[str, Any] = {}
    for name, value in names.items():
        array = np.asarray(value)
        if array.dtype.kind == "f":
            out[name] = array.astype(np.float64) if array.ndim else float(array)
        elif array.dtype.kind in "iu" and array.ndim:
            out[name] = array.astype(np.int64 if array.dtype.kind == "i" else np.uint64)
        else:
            out[name] = value
    return out


def _prepared(expression: str, names: Mapping[str, Any]) -> tuple[ast.Expression, dict[str, Any]]:
    """The parsed expression, with names that are Python keywords (a buffer called ``in``)
    read as names, and the scope under those names."""
    keywords = {n for n in names if keyword.iskeyword(n)}
    text = _mangled(expression, keywords) if keywords else expression
    tree = _parse(text, MAX_LENGTH, MAX_NODES, MAX_NODES)
    if _nesting(tree.body) > MAX_DEPTH:
        raise ExpressionError(
            f"expression {text[:40]!r} is too complex (at most {MAX_DEPTH} levels of nesting)"
        )
    scope = {(_MANGLE + n if n in keywords else n): v for n, v in names.items()}
    scope.setdefault("newaxis", None)
    return tree, scope


def _terms(node: ast.AST, ops: tuple[type, ...]) -> list[tuple[type | None, ast.AST]]:
    """A left-nested chain ``a + b - c`` as [(None, a), (Add, b), (Sub, c)], without
    recursion: a formula written out term by term is long, not deep."""
    chain: list[tuple[type | None, ast.AST]] = []
    while isinstance(node, ast.BinOp) and isinstance(node.op, ops):
        chain.append((type(node.op), node.right))
        node = node.left
    chain.append((None, node))
    return chain[::-1]


def _nesting(node: ast.AST) -> int:
    """Nesting depth, a chain of sums or products counted as one level."""
    deepest, stack = 0, [(node, 1)]
    while stack:
        current, level = stack.pop()
        deepest = max(deepest, level)
        if deepest > MAX_DEPTH:
            return deepest
        if isinstance(current, ast.BinOp) and isinstance(current.op, _CHAINED):
            ops = _SUMS if isinstance(current.op, _SUMS) else _PRODUCTS
            stack.extend((term, level + 1) for _, term in _terms(current, ops))
        else:
            stack.extend((child, level + 1) for child in ast.iter_child_nodes(current))
    return deepest


def _mangled(expression: str, keywords: set[str]) -> str:
    """The expression with each keyword token that names a buffer renamed."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(str(expression)).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return expression
    out = [
        (
            t.type,
            _MANGLE + t.string if t.type == tokenize.NAME and t.string in keywords else t.string,
        )
        for t in tokens
    ]
    return tokenize.untokenize(out)


class _Evaluator:
    """Walks a parsed expression over a scope: its value, or its magnitude."""

    def __init__(self, names: Mapping[str, Any], text: str) -> None:
        self.names, self.text = names, text

    def fail(self, node: ast.AST) -> ExpressionError:
        return ExpressionError(f"unsupported construct in {self.text!r}: {ast.dump(node)[:60]}")

    def value(self, node: ast.AST) -> Any:
        if isinstance(node, ast.Constant) and (
            node.value is None or isinstance(node.value, (int, float, bool, str))
        ):
            return node.value
        if isinstance(node, ast.Name):
            return self._name(node)
        if isinstance(node, ast.BinOp) and isinstance(node.op, _CHAINED):
            ops = _SUMS if isinstance(node.op, _SUMS) else _PRODUCTS
            terms = _terms(node, ops)
            total = self.value(terms[0][1])
            for op, term in terms[1:]:
                total = _BINARY[op or ast.Add](total, self.value(term))
            return total
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            left, right = self.value(node.left), self.value(node.right)
            if isinstance(node.op, (ast.Pow, ast.LShift)):
                self._bounded_power(node.op, left, right)
            return _BINARY[type(node.op)](left, right)
        if isinstance(node, ast.UnaryOp):
            operand = self.value(node.operand)
            if type(node.op) in _UNARY:
                return _UNARY[type(node.op)](operand)
        if isinstance(node, ast.Compare):
            left = self.value(node.left)
            if len(node.ops) == 1 and type(node.ops[0]) in _COMPARE:
                return _COMPARE[type(node.ops[0])](left, self.value(node.comparators[0]))
        if isinstance(node, ast.IfExp):
            return self.value(node.body if self.value(node.test) else node.orelse)
        if isinstance(node, ast.Attribute) and node.attr == "T":
            return np.asarray(self.value(node.value)).T
        if isinstance(node, ast.Subscript):
            return self.value(node.value)[self._index(node.slice)]
        if isinstance(node, (ast.Tuple, ast.List)):
            return tuple(self.value(e) for e in node.elts)
        if isinstance(node, ast.Call):
            function, args, keywords = self._call(node)
            return function(*[self.value(a) for a in args], **keywords)
        raise self.fail(node)

    def magnitude(self, node: ast.AST) -> Any:
        """Σ|terms| of ``node``'s value: sums and differences add their sides' magnitudes,
        products multiply them; anything else is bounded by its own absolute value."""
        if isinstance(node, ast.BinOp) and isinstance(node.op, _SUMS):
            terms = _terms(node, _SUMS)
            total = self.magnitude(terms[0][1])
            for _, term in terms[1:]:
                total = total + self.magnitude(term)
            return total
        if isinstance(node, ast.BinOp) and isinstance(node.op, _PRODUCTS):
            terms = _terms(node, _PRODUCTS)
            total = self.magnitude(terms[0][1])
            for op, term in terms[1:]:
                if op is ast.Div:
                    total = total / np.abs(self.value(term))
                else:
                    total = total * self.magnitude(term)
            return total
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            return self.magnitude(node.left) @ self.magnitude(node.right)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return self.magnitude(node.operand)
        if isinstance(node, ast.Attribute) and node.attr == "T":
            return np.asarray(self.magnitude(node.value)).T
        if isinstance(node, ast.Subscript):
            return np.asarray(self.magnitude(node.value))[self._index(node.slice)]
        if isinstance(node, ast.IfExp):
            return self.magnitude(node.body if self.value(node.test) else node.orelse)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in _ADDITIVE:
                function, args, keywords = self._call(node)
                return function(*[self._array_magnitude(a) for a in args], **keywords)
            if node.func.id == "where" and len(node.args) == 3:
                condition = self.value(node.args[0])
                return np.where(condition, *(self.magnitude(a) for a in node.args[1:]))
        return np.abs(np.asarray(self.value(node), dtype=np.float64))

    def _array_magnitude(self, node: ast.AST) -> Any:
        """An argument's magnitude where it is an array of values; as it is otherwise (a
        shape, an axis, an einsum's subscripts). A tuple or list is taken element by element:
        ``concatenate((border, interior))`` joins the magnitudes of its arrays, not their
        values (a stencil's interior summed from terms of both signs is far smaller than
        the terms it was summed from)."""
        if isinstance(node, (ast.Tuple, ast.List)):
            return tuple(self._array_magnitude(element) for element in node.elts)
        value = self.value(node)
        if isinstance(value, np.ndarray) and value.dtype.kind in "fiu" and value.ndim:
            return self.magnitude(node)
        return value

    def _bounded_power(self, op: ast.operator, base: Any, exponent: Any) -> None:
        """A power (or shift) of Python integers grows without bound (``9 ** 9 ** 9``): one
        past 256 bits is refused rather than computed for minutes."""
        if not (isinstance(base, int) and isinstance(exponent, int)):
            return
        bits: float
        if isinstance(op, ast.LShift):
            bits = exponent + abs(base).bit_length()
        else:
            bits = abs(exponent) * math.log2(abs(base)) if abs(base) > 1 else 0
        if bits > 256:
            raise ExpressionError(f"{self.text[:80]!r}: a number too large to compute")

    def _name(self, node: ast.Name) -> Any:
        if node.id not in self.names:
            known = ", ".join(sorted(n.removeprefix(_MANGLE) for n in self.names)) or "none"
            name = node.id.removeprefix(_MANGLE)
            raise ExpressionError(f"unknown name {name!r} in {self.text!r} (known: {known})")
        return self.names[node.id]

    def _call(self, node: ast.Call) -> tuple[Callable[..., Any], list[ast.expr], dict[str, Any]]:
        if (
            not isinstance(node.func, ast.Name)
            or node.func.id not in FUNCTIONS
            or any(k.arg not in _KEYWORDS for k in node.keywords)
        ):
            raise self.fail(node)
        keywords = {str(k.arg): self.value(k.value) for k in node.keywords}
        return FUNCTIONS[node.func.id], list(node.args), keywords

    def _index(self, node: ast.AST) -> Any:
        if isinstance(node, ast.Slice):
            parts = (node.lower, node.upper, node.step)
            return slice(*(None if p is None else int(self.value(p)) for p in parts))
        if isinstance(node, ast.Tuple):
            return tuple(self._index(e) for e in node.elts)
        return self.value(node)
