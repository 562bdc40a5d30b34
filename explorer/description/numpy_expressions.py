"""Safe evaluation of a kernel's reference: a numpy expression over its named buffers.

A header says ``numpy = "alpha * x + y"`` or ``numpy = "A @ B"``. The text is parsed with
the same :mod:`ast` front as the integer header expressions (:mod:`.expressions`), with room
for a long reference (bounded by its terms and nesting, not by a character count), and walked
over a whitelist: arithmetic, comparisons, subscripts and slices (``None`` and ``newaxis``
add an axis), ``.T``, ``.shape``, ``.size``, ``.ndim``, calls to the numpy functions below
(written ``pad(x, 1)``, ``np.pad(x, 1)`` or ``numpy.pad(x, 1)``) and the array methods that
are those functions (``x.reshape(H, W)``, ``x.sum(axis=1)``). No other attribute, no keyword
but the few below, no ``eval``. A buffer may be named like a Python keyword (``in``): such
names are read as names. What is not supported is refused in one sentence that names it
(:func:`check_expression` says it before anything is computed).

:func:`evaluate_reference` computes in float64 (float inputs promoted, integers widened to 64
bits) and gives, beside the value, the sum of the absolute values of the terms behind each
element (subtraction adds magnitudes; a product multiplies them): the bound the tolerance is
scaled by. It follows the terms through whatever only moves, joins or converts them
(``concatenate``, ``pad``, subscripts, ``astype(np.float32)`` …), through ``diff`` (a running
sum's differences keep only the terms between them) and through ``maximum``/``clip``/``abs``,
so a correct kernel whose element sums terms of both signs to almost nothing is not judged by
that small value. A formula over several lines, a line starting with its operator, is read as
the one line it means.
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
        "zeros", "full", "eye", "vstack", "hstack",
    )
}  # fmt: skip
# Functions that only move, gather or add their arguments' elements: the magnitude of their
# result is the same function of the magnitudes of their array arguments.
_ADDITIVE = {
    "cumsum", "dot", "matmul", "mean", "outer", "repeat", "reshape", "sum", "tile",
    "transpose", "flip", "roll", "concatenate", "stack", "einsum", "pad", "expand_dims",
    "squeeze", "ravel", "trace", "diag", "tril", "triu", "vstack", "hstack",
}  # fmt: skip
# Functions whose value is one of their arguments' values (or its size): its error is at most
# the largest of theirs, so its magnitude is the largest of their magnitudes, taken the same way.
_SELECTING = {"abs", "max", "min", "maximum", "minimum", "fmax", "fmin", "clip"}
# Array methods, as the function of the same name with the array first (``x.sum(axis=1)`` is
# ``sum(x, axis=1)``); reshape and transpose take their shape as separate numbers too.
METHODS = (
    "reshape", "transpose", "sum", "mean", "max", "min", "prod", "cumsum", "cumprod",
    "ravel", "flatten", "squeeze", "clip", "round", "dot", "repeat", "astype", "trace",
)  # fmt: skip
_PACKED = ("reshape", "transpose")  # x.reshape(H, W) is reshape(x, (H, W))
_ALIASES = {"flatten": "ravel"}
# Element types a reference may convert to: np.float32(x), x.astype(np.int32).
DTYPES: dict[str, Any] = {
    name: getattr(np, name)
    for name in (
        "float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
        "uint16", "uint32", "uint64", "bool_",
    )
} | {"float": np.float64, "int": np.int64, "bool": np.bool_}  # fmt: skip
# Constants of numpy a reference may name, with or without ``np.``.
CONSTANTS: dict[str, Any] = {"newaxis": None, "pi": math.pi, "e": math.e, "inf": math.inf}
_ARRAY_ATTRIBUTES = ("T", "shape", "size", "ndim")
_MODULES = ("np", "numpy")
_KEYWORDS = ("axis", "mode", "constant_values", "keepdims", "k", "n", "axes")
_SUMS = (ast.Add, ast.Sub)
_PRODUCTS = (ast.Mult, ast.Div)
_CHAINED = (*_SUMS, *_PRODUCTS)
_MANGLE = "__kw_"


def evaluate_array(expression: str, names: Mapping[str, Any]) -> np.ndarray:
    """The value of ``expression`` over ``names`` (arrays and numbers), as an array."""
    tree, scope, text = _prepared(expression, names)
    try:
        return np.asarray(_Evaluator(scope, text).value(tree.body))
    except ExpressionError:
        raise
    except (ArithmeticError, ValueError, TypeError, IndexError) as exc:
        raise ExpressionError(f"{expression!r} fails: {exc}") from None


def evaluate_reference(expression: str, names: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """The value of ``expression`` in float64 and, element by element, the sum of the
    absolute values of the terms it adds up (the tolerance's Σ|terms|)."""
    tree, scope, text = _prepared(expression, _widened(names))
    evaluator = _Evaluator(scope, text)
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


def _prepared(
    expression: str, names: Mapping[str, Any]
) -> tuple[ast.Expression, dict[str, Any], str]:
    """The parsed expression, with names that are Python keywords (a buffer called ``in``)
    read as names, the scope under those names, and the text parsed."""
    keywords = {n for n in names if keyword.iskeyword(n)}
    text = (_mangled(expression, keywords) if keywords else str(expression)).strip()
    try:
        tree = _parse(text, MAX_LENGTH, MAX_NODES, MAX_NODES)
    except ExpressionError as exc:
        tree, text = _parsed_as_one_line(text, exc)
    if _nesting(tree.body) > MAX_DEPTH:
        raise ExpressionError(
            f"expression {text[:40]!r} is too complex (at most {MAX_DEPTH} levels of nesting)"
        )
    _normalised(tree)
    scope = {(_MANGLE + n if n in keywords else n): v for n, v in names.items()}
    for constant, value in {**CONSTANTS, **DTYPES}.items():
        scope.setdefault(constant, value)
    return tree, scope, text


def _parsed_as_one_line(text: str, error: ExpressionError) -> tuple[ast.Expression, str]:
    """A formula written over several lines, a line starting with its operator (``a\\n + b``,
    as in a header's triple-quoted string), read as the one line it means: each line break a
    space, so every piece keeps its place. Otherwise ``error``, as the text was written."""
    joined = text.replace("\r", " ").replace("\n", " ")
    if joined == text or "#" in text:  # a comment would swallow the lines after it
        raise ExpressionError(str(error).replace(_MANGLE, "")) from None
    try:
        return _parse(joined, MAX_LENGTH, MAX_NODES, MAX_NODES), joined
    except ExpressionError:
        raise ExpressionError(str(error).replace(_MANGLE, "")) from None


def check_expression(expression: str, names: Mapping[str, Any] | set[str]) -> str | None:
    """Why ``expression`` cannot be a reference over ``names``, in one sentence, before
    anything is computed (a name it does not know, a function, method, attribute, keyword or
    construct it does not support, a syntax error); None when it may be evaluated."""
    known = dict.fromkeys(names) if isinstance(names, set) else dict(names)
    try:
        tree, scope, text = _prepared(expression, known)
    except ExpressionError as exc:
        return str(exc)
    evaluator = _Evaluator(scope, text)
    nodes = list(ast.walk(tree.body))
    called = {id(n.func) for n in nodes if isinstance(n, ast.Call)}
    for node in nodes:
        if isinstance(node, ast.Name) and id(node) in called:
            continue  # a function's name: the call says whether it is one
        if isinstance(node, ast.Name) and node.id not in scope:
            return str(evaluator.unknown(node))
        problem = _refusal(node, text)
        if problem is not None:
            return problem
    return None


def _normalised(tree: ast.Expression) -> None:
    """Rewrite, in place, what numpy users write into the one form the walk knows:
    ``np.pad(x, 1)`` and ``numpy.pad`` as ``pad(x, 1)``, ``np.newaxis`` as ``newaxis``, an
    array method ``x.reshape(H, W)`` as ``reshape(x, (H, W))``. Without recursion (a long
    formula is a deep tree): the nodes are listed first, then each call is rewritten."""
    for node in list(ast.walk(tree)):
        for field, value in ast.iter_fields(node):
            if isinstance(value, ast.Attribute) and _numpy_name(value):
                setattr(node, field, ast.copy_location(ast.Name(value.attr, ast.Load()), value))
            elif isinstance(value, list):
                value[:] = [
                    ast.copy_location(ast.Name(v.attr, ast.Load()), v)
                    if isinstance(v, ast.Attribute) and _numpy_name(v)
                    else v
                    for v in value
                ]
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        method = node.func
        if method.attr not in METHODS or _numpy_name(method):
            continue
        args = list(node.args)
        if method.attr in _PACKED and len(args) > 1:
            args = [ast.copy_location(ast.Tuple(args, ast.Load()), args[0])]
        name = _ALIASES.get(method.attr, method.attr)
        node.func = ast.copy_location(ast.Name(name, ast.Load()), method)
        node.args = [method.value, *args]


def _numpy_name(node: ast.Attribute) -> bool:
    """``np.NAME`` or ``numpy.NAME`` for a function, an element type or a constant."""
    return (
        isinstance(node.value, ast.Name)
        and node.value.id in _MODULES
        and (node.attr in FUNCTIONS or node.attr in DTYPES or node.attr in CONSTANTS)
    )


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
    text = str(expression)
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return text
    # Each name prefixed where it stands, the rest kept as typed: a message quotes the text.
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    offsets = [
        starts[t.start[0] - 1] + t.start[1]
        for t in tokens
        if t.type == tokenize.NAME and t.string in keywords
    ]
    for offset in reversed(offsets):
        text = text[:offset] + _MANGLE + text[offset:]
    return text


class _Evaluator:
    """Walks a parsed expression over a scope: its value, or its magnitude."""

    def __init__(self, names: Mapping[str, Any], text: str) -> None:
        self.names, self.parsed = names, text  # the text parsed: nodes point into it
        self.text = text.replace(_MANGLE, "")  # as the person wrote it

    def fail(self, node: ast.AST) -> ExpressionError:
        """What is not supported at ``node``, in one sentence that names it."""
        sentence = _refusal(node, self.parsed) or _quoted(node, self.parsed) + " is not supported"
        return ExpressionError(sentence)

    def unknown(self, node: ast.Name) -> ExpressionError:
        own = (n for n in self.names if n not in CONSTANTS and n not in DTYPES)
        known = ", ".join(sorted(n.removeprefix(_MANGLE) for n in own))
        name = node.id.removeprefix(_MANGLE)
        return ExpressionError(
            f"{self.text!r} names {name!r}, which is not a buffer, scalar or size of the kernel "
            f"(known: {known or 'none'})"
        )

    def value(self, node: ast.AST) -> Any:
        if isinstance(node, ast.Constant) and (
            node.value is None
            or node.value is Ellipsis
            or isinstance(node.value, (int, float, bool, str))
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
        if isinstance(node, ast.Attribute) and node.attr in _ARRAY_ATTRIBUTES:
            return getattr(np.asarray(self.value(node.value)), node.attr)
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
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            exponent = self.value(node.right)
            if _whole_power(exponent):  # (a - b) ** 2 is (a - b) * (a - b)
                return np.asarray(self.magnitude(node.left), dtype=np.float64) ** int(exponent)
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
            if node.func.id in _SELECTING:
                return self._selected_magnitude(node)
            if node.func.id == "diff" and node.args:
                return self._difference_magnitude(node)
            converted = self._converted(node)
            if converted is not None:
                return self.magnitude(converted)
        return np.abs(np.asarray(self.value(node), dtype=np.float64))

    def _shaped_magnitude(self, node: ast.AST) -> np.ndarray:
        """``node``'s magnitude in the shape of its value."""
        shape = np.shape(self.value(node))
        return np.broadcast_to(np.asarray(self.magnitude(node), dtype=np.float64), shape)

    def _converted(self, node: ast.Call) -> ast.AST | None:
        """The argument of a conversion to a floating type (``np.float32(x)``,
        ``x.astype(np.float32)``): rounding to the kernel's own type changes no term, so the
        magnitude is the argument's. None for anything else (a conversion to an integer
        type is judged by its value)."""
        assert isinstance(node.func, ast.Name)
        name = node.func.id
        if name in DTYPES and len(node.args) == 1 and not node.keywords:
            target, argument = DTYPES[name], node.args[0]
        elif name == "astype" and len(node.args) == 2 and not node.keywords:
            target, argument = self.value(node.args[1]), node.args[0]
        else:
            return None
        try:
            floating = np.dtype(target).kind == "f"
        except TypeError:
            return None
        return argument if floating else None

    def _selected_magnitude(self, node: ast.Call) -> Any:
        """``abs``, ``maximum``, ``max``, ``clip``…: the value is one of the values it is
        given (or its size), whose error is at most the largest of theirs: the largest of
        their magnitudes, over the same axes for a reduction (also for ``min``: the least
        value may be the one with the largest error)."""
        _, args, keywords = self._call(node)
        name = node.func.id if isinstance(node.func, ast.Name) else ""
        if name in ("max", "min"):
            rest = [self.value(a) for a in args[1:]]
            return np.max(self._shaped_magnitude(args[0]), *rest, **keywords)
        if name == "clip":  # a bound counts only where the value is that bound
            value = np.asarray(self.value(node))
            total = self._shaped_magnitude(args[0])
            for bound in args[1:]:
                if not (isinstance(bound, ast.Constant) and bound.value is None):
                    at = value == np.asarray(self.value(bound))
                    total = np.where(at, np.maximum(total, self.magnitude(bound)), total)
            return total
        total = np.zeros(np.shape(self.value(node)))
        for argument in args:
            total = np.maximum(total, np.asarray(self.magnitude(argument), dtype=np.float64))
        return total

    def _difference_magnitude(self, node: ast.Call) -> Any:
        """``diff(x)`` takes ``x[i + 1] - x[i]``: their magnitudes add. A running sum read at
        some places (``diff(concatenate(([0], cumsum(p)))[starts])``, a sparse row's sum)
        differs by the terms between those places, whose magnitude is the difference of its
        running magnitudes: the terms summed before them cancel, and do not count."""
        _, args, keywords = self._call(node)
        order = keywords.get("n", self.value(args[1]) if len(args) > 1 else 1)
        axis = keywords.get("axis", self.value(args[2]) if len(args) > 2 else -1)
        magnitude = self._shaped_magnitude(args[0])
        if order == 1 and self._running_sum(args[0], axis):
            return np.abs(np.diff(magnitude, axis=axis))
        moved = np.moveaxis(magnitude, axis, -1)
        for _ in range(int(order)):
            moved = moved[..., 1:] + moved[..., :-1]
        return np.moveaxis(moved, -1, axis)

    def _running_sum(self, node: ast.AST, axis: Any) -> bool:
        """Whether ``node`` holds the elements of one running sum (``cumsum``) such that
        any two of them a ``diff`` along ``axis`` subtracts are two partial sums of the same
        terms: a one-dimensional running sum read through subscripts, joined with zeros
        (``concatenate(([0], cumsum(p)))``) or padded with them; or a running sum along
        ``axis`` itself, as it is."""
        if (
            isinstance(node, ast.Call)
            and _call_of(node, "cumsum")
            and np.ndim(self.value(node)) > 1
        ):
            given = {k.arg: k.value for k in node.keywords}
            summed = given.get("axis", node.args[1] if len(node.args) > 1 else None)
            ndim = np.ndim(self.value(node))
            return summed is not None and int(self.value(summed)) % ndim == int(axis) % ndim
        while True:
            if isinstance(node, ast.Subscript):
                node = node.value
            elif isinstance(node, ast.Call) and _call_of(node, "concatenate", "hstack"):
                parts = [p for p in _parts(node) if not _zero(p)]
                if len(parts) != 1:  # one running sum, the rest zeros
                    return False
                node = parts[0]
            elif isinstance(node, ast.Call) and _call_of(node, "pad") and _padded_with_zeros(node):
                node = node.args[0]
            else:
                break
        return _call_of(node, "cumsum") and np.ndim(self.value(node)) == 1

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
            raise self.unknown(node)
        return self.names[node.id]

    def _call(self, node: ast.Call) -> tuple[Callable[..., Any], list[ast.expr], dict[str, Any]]:
        if _refusal(node, self.parsed) is not None:
            raise self.fail(node)
        assert isinstance(node.func, ast.Name)
        keywords = {str(k.arg): self.value(k.value) for k in node.keywords}
        return _CALLABLE[node.func.id], list(node.args), keywords

    def _index(self, node: ast.AST) -> Any:
        if isinstance(node, ast.Slice):
            parts = (node.lower, node.upper, node.step)
            return slice(*(None if p is None else int(self.value(p)) for p in parts))
        if isinstance(node, ast.Tuple):
            return tuple(self._index(e) for e in node.elts)
        return self.value(node)


def _whole_power(exponent: Any) -> bool:
    """A power that multiplies its base by itself: a whole number from 1 to 64."""
    if isinstance(exponent, bool) or not isinstance(exponent, (int, float, np.number)):
        return False
    return float(exponent).is_integer() and bool(1 <= exponent <= 64)


def _call_of(node: ast.AST, *names: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names


def _parts(node: ast.Call) -> list[ast.expr]:
    """The arrays a ``concatenate``/``hstack`` call joins, written out as a tuple or list
    (none where they are not written out)."""
    if node.args and isinstance(node.args[0], (ast.Tuple, ast.List)):
        return list(node.args[0].elts)
    return []


def _zero(node: ast.AST) -> bool:
    """A zero written out: ``0``, ``[0]``, ``(0.0, 0.0)``, ``zeros(...)``, ``zeros_like(x)``."""
    if isinstance(node, ast.Constant):
        number = isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
        return number and node.value == 0
    if isinstance(node, (ast.Tuple, ast.List)):
        return bool(node.elts) and all(_zero(e) for e in node.elts)
    return _call_of(node, "zeros", "zeros_like")


def _padded_with_zeros(node: ast.Call) -> bool:
    """``pad(x, widths)`` in its constant mode with zeros (numpy's default)."""
    keywords = {str(k.arg): k.value for k in node.keywords}
    mode = keywords.get("mode", node.args[2] if len(node.args) > 2 else None)
    if mode is not None and not (isinstance(mode, ast.Constant) and mode.value == "constant"):
        return False
    values = keywords.get("constant_values")
    return bool(node.args) and (values is None or _zero(values))


def _astype(array: Any, dtype: Any) -> np.ndarray:
    """``x.astype(np.float32)``: to one of the element types a reference may name."""
    if not any(dtype is known for known in DTYPES.values()):
        raise ExpressionError(
            f"astype takes one of {', '.join('np.' + n for n in DTYPES)}, not {dtype!r}"
        )
    return np.asarray(array).astype(dtype)


# Every name a reference may call: numpy's functions, the element types, astype.
_CALLABLE: dict[str, Callable[..., Any]] = {**FUNCTIONS, **DTYPES, "astype": _astype}


def _quoted(node: ast.AST, text: str) -> str:
    """The piece of the reference at ``node``, as the person wrote it (a keyword-named buffer
    under its own name)."""
    piece = ast.get_source_segment(text, node) if hasattr(node, "col_offset") else None
    piece = (piece or type(node).__name__).replace(_MANGLE, "")
    return repr(piece if len(piece) <= 60 else piece[:57] + "...")


def _dotted(node: ast.AST) -> str:
    """``np.linalg.inv`` for an attribute chain; the node's kind otherwise."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    parts.append(node.id if isinstance(node, ast.Name) else "(...)")
    return ".".join(reversed(parts))


_FUNCTION_LIST = ", ".join(sorted(FUNCTIONS))
_CONSTRUCTS: dict[type, str] = {
    ast.BoolOp: "'and' and 'or' are not supported: combine comparisons with & and |, each in "
    "parentheses",
    ast.Lambda: "a lambda is not supported",
    ast.ListComp: "a comprehension is not supported: write the terms out, or use a numpy "
    "function over an axis (sum, cumsum, stack, ...)",
    ast.GeneratorExp: "a comprehension is not supported: write the terms out, or use a numpy "
    "function over an axis (sum, cumsum, stack, ...)",
    ast.SetComp: "a comprehension is not supported",
    ast.DictComp: "a comprehension is not supported",
    ast.Dict: "a dict is not supported",
    ast.Set: "a set is not supported",
    ast.NamedExpr: "an assignment (:=) is not supported: a reference is one expression",
    ast.JoinedStr: "an f-string is not supported",
    ast.Starred: "a starred argument (*args) is not supported",
}
# Nodes that are parts of others (operators, contexts, a keyword argument, a slice).
_PARTS = (ast.operator, ast.unaryop, ast.cmpop, ast.expr_context, ast.keyword, ast.Slice)
_LEAVES = (ast.Name, ast.BinOp, ast.IfExp, ast.Subscript, ast.Tuple, ast.List)


def _refusal(node: ast.AST, text: str) -> str | None:
    """Why ``node`` (one node: its children are judged on their own) is not something a
    reference computes, in one sentence naming it; None when it is supported."""
    where = _quoted(node, text)
    if isinstance(node, (*_PARTS, *_LEAVES)):
        return None
    if isinstance(node, ast.Constant):
        if (
            node.value is None
            or node.value is Ellipsis
            or isinstance(node.value, (int, float, bool, str))
        ):
            return None
        return (
            f"{where}: the constant is not supported (numbers, True, False, None, ... and text are)"
        )
    if isinstance(node, ast.UnaryOp):
        if type(node.op) in _UNARY:
            return None
        return f"{where}: 'not' is not supported: use ~ on a comparison in parentheses"
    if isinstance(node, ast.Compare):
        if len(node.ops) == 1 and type(node.ops[0]) in _COMPARE:
            return None
        if len(node.ops) > 1:
            return f"{where}: a chained comparison is not supported: write (a < b) & (b < c)"
        return f"{where}: 'in' and 'is' are not supported: compare with == or !="
    if isinstance(node, ast.Attribute):
        return _attribute_refusal(node, where)
    if isinstance(node, ast.Call):
        if not isinstance(node.func, (ast.Name, ast.Attribute)):  # (lambda: x)(), x[0]()
            return _refusal(node.func, text) or f"{where}: only numpy's functions may be called"
        return _call_refusal(node, where)
    construct = _CONSTRUCTS.get(type(node))
    return f"{where}: {construct}" if construct else f"{where} is not supported in a reference"


def _attribute_refusal(node: ast.Attribute, where: str) -> str | None:
    if isinstance(node.value, ast.Name) and node.value.id in _MODULES:
        return (
            f"{where}: {_dotted(node)} is not a numpy name a reference knows (its functions: "
            f"{_FUNCTION_LIST}; element types such as np.float32; np.newaxis, np.pi, np.e)"
        )
    if node.attr in _ARRAY_ATTRIBUTES:
        return None
    return (
        f"{where}: the attribute .{node.attr} is not supported (an array's .T, .shape, .size "
        f"and .ndim are, and the methods {', '.join(METHODS)})"
    )


def _call_refusal(node: ast.Call, where: str) -> str | None:
    func = node.func
    if isinstance(func, ast.Attribute):
        named = _dotted(func)
        if named.split(".")[0] in _MODULES:  # np.X where X is one of ours is a name by now
            return (
                f"{where}: {named}() is not a numpy function a reference may call (it may "
                f"call {_FUNCTION_LIST}, with or without np.)"
            )
        return (
            f"{where}: the method .{func.attr}() is not supported (an array's methods a "
            f"reference may call: {', '.join(METHODS)})"
        )
    if not isinstance(func, ast.Name) or func.id not in _CALLABLE:
        named = func.id.removeprefix(_MANGLE) if isinstance(func, ast.Name) else "it"
        return (
            f"{where}: {named}() is not a function a reference may call (it may call "
            f"{_FUNCTION_LIST}, with or without np.)"
        )
    for k in node.keywords:
        if k.arg is None:
            return f"{where}: ** in a call is not supported"
        if k.arg not in _KEYWORDS:
            return (
                f"{where}: the keyword {k.arg}= is not supported (a reference's calls take "
                f"{', '.join(_KEYWORDS)})"
            )
    return None
