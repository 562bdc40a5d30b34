"""Safe evaluation of the small integer expressions in kernel headers.

Headers say things like ``global = ["cdiv(N, WPT)", "M"]`` or
``sizes = ["K % TS == 0"]``. They are parsed with :mod:`ast` and evaluated
over a whitelist of integer operators: no attribute access, no calls
other than the functions below, no ``eval``.

A header is hostile input as much as a file is: every expression is evaluated under limits
(its length, its nesting depth, the operands of ``**`` and ``<<``, the magnitude of every
intermediate value), so ``WIDTH ** WIDTH ** WIDTH`` is a message, not a machine out of memory.
"""

from __future__ import annotations

import ast
import operator
from collections.abc import Callable, Mapping

_BINARY: dict[type, Callable[[int, int], int]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv,
    ast.Div: operator.floordiv,  # headers mean integer division, as in C
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
    ast.LShift: operator.lshift,
    ast.RShift: operator.rshift,
}
_COMPARE: dict[type, Callable[[int, int], bool]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}


def _cdiv(a: int, b: int) -> int:
    return -(-a // b)


def _round_up(a: int, b: int) -> int:
    return _cdiv(a, b) * b


def _is_pow2(a: int) -> bool:
    return a > 0 and a & (a - 1) == 0


FUNCTIONS: dict[str, Callable[..., int]] = {
    "cdiv": _cdiv,
    "round_up": _round_up,
    "min": min,
    "max": max,
    "is_pow2": _is_pow2,
}


# Sizes, defines and NDRanges are C ints or size_t: nothing sensible is wider than 64 bits.
MAX_MAGNITUDE = 2**64
MAX_LENGTH = 2000  # characters of one expression
MAX_DEPTH = 40  # nesting of operators and calls
MAX_NODES = 500


class ExpressionError(ValueError):
    """An expression in a kernel header is malformed, names something unknown or exceeds
    the evaluation limits."""


def names_in(expression: str) -> set[str]:
    """The variable names an expression uses (functions excluded)."""
    tree = _parse(expression)
    calls = {
        node.func.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - calls


def _parse(
    expression: str,
    max_length: int = MAX_LENGTH,
    max_depth: int = MAX_DEPTH,
    max_nodes: int = MAX_NODES,
) -> ast.Expression:
    text = str(expression).strip()
    if len(text) > max_length:
        raise ExpressionError(
            f"expression {text[:40]!r}... is {len(text)} characters; at most {max_length}"
        )
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise ExpressionError(f"cannot parse expression {expression!r}: {exc.msg}") from None
    except (RecursionError, MemoryError, ValueError):
        raise ExpressionError(f"expression {text[:40]!r} is nested too deeply") from None
    if _depth(tree.body, max_depth) > max_depth or sum(1 for _ in ast.walk(tree)) > max_nodes:
        raise ExpressionError(
            f"expression {text[:40]!r} is too complex (at most {max_depth} levels of nesting "
            f"and {max_nodes} terms)"
        )
    return tree


def _depth(node: ast.AST, limit: int = MAX_DEPTH) -> int:
    """Nesting depth, without recursion (a hostile expression may be deeper than the stack)."""
    deepest, stack = 0, [(node, 1)]
    while stack:
        current, level = stack.pop()
        deepest = max(deepest, level)
        if deepest > limit:
            return deepest
        stack.extend((child, level + 1) for child in ast.iter_child_nodes(current))
    return deepest


def _bounded(value: int, text: str) -> int:
    if abs(value) > MAX_MAGNITUDE:
        raise ExpressionError(f"{text!r} reaches a value beyond 2**64; sizes never need that")
    return value


def _binary(op: ast.operator, left: int, right: int, text: str) -> int:
    """One operator, refused before it runs when its result could not fit in 64 bits."""
    if isinstance(op, ast.Pow):
        if right < 0:
            raise ExpressionError(f"negative exponent in {text!r}")
        if abs(left) > 1 and right * max(1, abs(left).bit_length() - 1) > 64:
            raise ExpressionError(f"{text!r} computes {left} ** {right}, beyond 2**64")
    if isinstance(op, (ast.LShift, ast.RShift)):
        if right < 0:
            raise ExpressionError(f"negative shift count in {text!r}")
        if isinstance(op, ast.LShift) and left != 0 and abs(left).bit_length() + right > 65:
            raise ExpressionError(f"{text!r} computes {left} << {right}, beyond 2**64")
        right = min(right, 128)
    return _bounded(int(_BINARY[type(op)](left, right)), text)


def evaluate(expression: str | int, names: Mapping[str, int]) -> int:
    """Evaluate an integer (or boolean) expression over ``names``."""
    if isinstance(expression, bool):
        return int(expression)
    if isinstance(expression, int):
        return expression
    tree = _parse(expression)
    return _eval(tree.body, names, expression)


def _eval(node: ast.AST, names: Mapping[str, int], text: str) -> int:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, bool)):
        return _bounded(int(node.value), text)
    if isinstance(node, ast.Name):
        if node.id not in names:
            known = ", ".join(sorted(names)) or "none"
            raise ExpressionError(f"unknown name {node.id!r} in {text!r} (known: {known})")
        return _bounded(int(names[node.id]), text)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _eval(node.left, names, text), _eval(node.right, names, text)
        if isinstance(node.op, (ast.FloorDiv, ast.Div, ast.Mod)) and right == 0:
            raise ExpressionError(f"division by zero in {text!r}")
        return _binary(node.op, left, right, text)
    if isinstance(node, ast.UnaryOp):
        value = _eval(node.operand, names, text)
        if isinstance(node.op, ast.USub):
            return -value
        if isinstance(node.op, ast.UAdd):
            return value
        if isinstance(node.op, ast.Not):
            return int(not value)
    if isinstance(node, ast.BoolOp):
        values = [_eval(v, names, text) for v in node.values]
        return int(all(values) if isinstance(node.op, ast.And) else any(values))
    if isinstance(node, ast.Compare):
        left = _eval(node.left, names, text)
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = _eval(comparator, names, text)
            if type(op) not in _COMPARE or not _COMPARE[type(op)](left, right):
                return 0
            left = right
        return 1
    if isinstance(node, ast.IfExp):
        branch = node.body if _eval(node.test, names, text) else node.orelse
        return _eval(branch, names, text)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in FUNCTIONS
        and not node.keywords
    ):
        args = [_eval(a, names, text) for a in node.args]
        if node.func.id in ("cdiv", "round_up") and (len(args) != 2 or args[1] == 0):
            raise ExpressionError(f"{node.func.id} takes two numbers, the second not 0: {text!r}")
        try:
            return _bounded(int(FUNCTIONS[node.func.id](*args)), text)
        except TypeError:
            raise ExpressionError(
                f"wrong number of arguments to {node.func.id} in {text!r}"
            ) from None
    piece = ast.get_source_segment(str(text).strip(), node) or type(node).__name__
    raise ExpressionError(
        f"{text!r}: {piece!r} is not supported in a size expression (numbers; the names of "
        "sizes and defines; + - * / // % ** << >> & | ^; comparisons, and, or, not, x if c "
        f"else y; {', '.join(FUNCTIONS)})"
    )
