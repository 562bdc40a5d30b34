"""Safe evaluation of a custom kernel's reference: a numpy expression over its named buffers.

A header says ``numpy = "alpha * x + y"`` or ``numpy = "A @ B"``. The text is parsed with
the same :mod:`ast` front as the integer header expressions (:mod:`.expressions`)
and walked over a whitelist: arithmetic, comparisons, subscripts and slices, ``.T``, and calls
to the numpy functions below. No other attribute, no keyword other than ``axis``, no ``eval``.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from explorer.description.expressions import ExpressionError, _parse

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
        "left_shift", "concatenate", "stack", "einsum",
    )
}  # fmt: skip


def evaluate_array(expression: str, names: Mapping[str, Any]) -> np.ndarray:
    """The value of ``expression`` over ``names`` (arrays and numbers), as an array."""
    tree = _parse(expression)
    try:
        return np.asarray(_eval(tree.body, names, expression))
    except ExpressionError:
        raise
    except (ArithmeticError, ValueError, TypeError, IndexError) as exc:
        raise ExpressionError(f"{expression!r} fails: {exc}") from None


def _eval(node: ast.AST, names: Mapping[str, Any], text: str) -> Any:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, bool)):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in names:
            known = ", ".join(sorted(names)) or "none"
            raise ExpressionError(f"unknown name {node.id!r} in {text!r} (known: {known})")
        return names[node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left, names, text), _eval(node.right, names, text)
        return _BINARY[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp):
        value = _eval(node.operand, names, text)
        if isinstance(node.op, ast.USub):
            return -value
        if isinstance(node.op, ast.UAdd):
            return value
        if isinstance(node.op, ast.Invert):
            return ~value
    if isinstance(node, ast.Compare):
        left = _eval(node.left, names, text)
        if len(node.ops) == 1 and type(node.ops[0]) in _COMPARE:
            return _COMPARE[type(node.ops[0])](left, _eval(node.comparators[0], names, text))
    if isinstance(node, ast.IfExp):
        branch = node.body if _eval(node.test, names, text) else node.orelse
        return _eval(branch, names, text)
    if isinstance(node, ast.Attribute) and node.attr == "T":
        return np.asarray(_eval(node.value, names, text)).T
    if isinstance(node, ast.Subscript):
        return _eval(node.value, names, text)[_index(node.slice, names, text)]
    if isinstance(node, (ast.Tuple, ast.List)):
        return tuple(_eval(e, names, text) for e in node.elts)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in FUNCTIONS
        and all(k.arg == "axis" for k in node.keywords)
        and len(node.keywords) <= 1
    ):
        args = [_eval(a, names, text) for a in node.args]
        if node.keywords:
            axis = _eval(node.keywords[0].value, names, text)
            return FUNCTIONS[node.func.id](*args, axis=axis)
        return FUNCTIONS[node.func.id](*args)
    raise ExpressionError(f"unsupported construct in {text!r}: {ast.dump(node)[:60]}")


def _index(node: ast.AST, names: Mapping[str, Any], text: str) -> Any:
    if isinstance(node, ast.Slice):
        parts = (node.lower, node.upper, node.step)
        return slice(*(None if p is None else int(_eval(p, names, text)) for p in parts))
    if isinstance(node, ast.Tuple):
        return tuple(_index(e, names, text) for e in node.elts)
    return _eval(node, names, text)
