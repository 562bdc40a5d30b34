"""Which input elements one element of a reference depends on, where the reference makes it
known: what "Why is this element wrong" sets beside what flowed in.

A family states its own (``Family.reference_needs``: matmul's row of A and column of B, a
transpose's mirrored element, a stencil's neighbourhood …). A kernel whose reference is a
numpy expression gets them from the expression, walked over the same whitelist it is
evaluated with (:mod:`.numpy_expressions`): names, ``.T``, arithmetic and comparisons
element by element with broadcasting, basic subscripts and slices, ``@``/``matmul``/``dot``,
``einsum`` with explicit letters, ``transpose``, ``outer``, ``flip``, ``roll`` along an axis,
``where``, conversions of the element type, and sums, means, maxima and minima along axes;
written with or without ``np.``, or as an array's methods (``x.sum(axis=1)``), which the
expression front turns into the same calls. Anything else (a gather by an
index array, ``reshape`` of a range, ``pad``, ``sort`` …) leaves the needs unknown, said as
such, never guessed.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from explorer.description.contents import scalar_array
from explorer.description.expressions import ExpressionError
from explorer.description.launch import BufferParam, LaunchDescription, ScalarParam
from explorer.description.numpy_expressions import (
    _CHAINED,
    _MANGLE,
    _PRODUCTS,
    _SUMS,
    DTYPES,
    _Evaluator,
    _prepared,
    _terms,
    _widened,
)

# Per input buffer, True for each element the reference element depends on (rows first).
Needs = dict[str, np.ndarray]
# Along each axis of a value, the positions needed (the needed elements are their product).
Spec = tuple[np.ndarray, ...]

_ELEMENTWISE = {
    "abs", "ceil", "cos", "exp", "floor", "fmax", "fmin", "log", "maximum", "minimum", "sin",
    "sqrt", "tanh", "rint", "round", "bitwise_and", "bitwise_or", "bitwise_xor",
    "right_shift", "left_shift", "sign", "clip",
}  # fmt: skip
_REDUCTIONS = {"sum", "mean", "max", "min", "prod"}
_CONSTANTS = {"zeros_like", "ones_like", "full_like", "ones", "zeros", "full", "eye", "arange"}


class _Unknown(Exception):
    """The expression does not make the needs known; the message says what stopped it."""


def shown(b: BufferParam, array: np.ndarray) -> np.ndarray:
    """A buffer as a person sees it and as it is judged: its shown shape."""
    return array.reshape(b.shown_shape)


def reference_scope(
    description: LaunchDescription,
    inputs: Mapping[str, np.ndarray],
    names: Mapping[str, int],
) -> dict[str, Any]:
    """What a numpy reference is evaluated over: the sizes and defines (``names``), the
    scalars and every buffer as shown."""
    scope: dict[str, Any] = dict(names)
    for p in description.params:
        if isinstance(p, ScalarParam) and p.type is not None:
            values = p.value if isinstance(p.value, tuple) else (p.value,)
            array = scalar_array(p.type, values, p.name)
            scope[p.name] = array[0] if array.size == 1 else array
        elif isinstance(p, ScalarParam):
            scope[p.name] = p.value
    for other in description.buffers:
        if other.name in inputs:
            scope[other.name] = shown(other, inputs[other.name])
    return scope


def expression_needs(
    expression: str,
    scope: Mapping[str, Any],
    buffers: Mapping[str, tuple[int, ...]],
    result_shape: tuple[int, ...],
    where: tuple[int, ...],
) -> Needs | str:
    """The elements of each buffer of ``buffers`` (by name, their shown shapes) that element
    ``where`` of the result (shown as ``result_shape``) depends on, by the expression; or why
    the expression does not make them known."""
    try:
        tree, prepared, text = _prepared(expression, _widened(scope))
        walker = _Walker(prepared, text, buffers)
        shape = walker.shape(tree.body)
        if shape != tuple(result_shape):
            if int(np.prod(shape)) != int(np.prod(result_shape)):
                raise _Unknown(f"its value has shape {shape}, the result {result_shape}")
            flat = int(np.ravel_multi_index(where, result_shape))
            where = tuple(int(v) for v in np.unravel_index(flat, shape))
        spec = tuple(np.array([w], dtype=np.int64) for w in where)
        found = walker.needs(tree.body, spec)
    except _Unknown as exc:
        return f"the reference {expression!r} does not tell them: {exc}"
    except (ExpressionError, ArithmeticError, ValueError, TypeError, IndexError) as exc:
        return f"the reference {expression!r} could not be read: {exc}"
    needs: Needs = {name: np.zeros(shape, dtype=bool) for name, shape in buffers.items()}
    for name, part in found:
        mask = needs[name]
        if mask.ndim == 0:
            mask[()] = True
        elif all(axis.size for axis in part):
            mask[np.ix_(*part)] = True
    return needs


class _Walker:
    """Walks a parsed expression from its result back to its names: for a set of positions
    of a node's value (one array of positions per axis), the positions of each buffer."""

    def __init__(
        self, scope: Mapping[str, Any], text: str, buffers: Mapping[str, tuple[int, ...]]
    ) -> None:
        self.evaluator = _Evaluator(scope, text)
        self.scope = scope
        self.buffers = buffers
        self._shapes: dict[int, tuple[int, ...]] = {}

    def value(self, node: ast.AST) -> Any:
        return self.evaluator.value(node)

    def shape(self, node: ast.AST) -> tuple[int, ...]:
        if id(node) not in self._shapes:
            self._shapes[id(node)] = tuple(int(d) for d in np.shape(self.value(node)))
        return self._shapes[id(node)]

    def needs(self, node: ast.AST, spec: Spec) -> list[tuple[str, Spec]]:
        if isinstance(node, ast.Constant):
            return []
        if isinstance(node, ast.Name):
            name = node.id.removeprefix(_MANGLE)
            if name in self.buffers:
                return [(name, spec)]
            return []
        if isinstance(node, ast.Attribute) and node.attr == "T":
            return self.needs(node.value, spec[::-1])
        if isinstance(node, ast.Attribute) and node.attr in ("shape", "size", "ndim"):
            return []  # a number from the shape: no element's value
        if isinstance(node, ast.UnaryOp):
            return self.needs(node.operand, spec)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            return self._matmul(node.left, node.right, spec)
        if isinstance(node, ast.BinOp) and isinstance(node.op, _CHAINED):
            ops = _SUMS if isinstance(node.op, _SUMS) else _PRODUCTS
            return self._elementwise([term for _, term in _terms(node, ops)], spec)
        if isinstance(node, ast.BinOp):
            return self._elementwise([node.left, node.right], spec)
        if isinstance(node, ast.Compare) and len(node.comparators) == 1:
            return self._elementwise([node.left, node.comparators[0]], spec)
        if isinstance(node, ast.IfExp):
            return self.needs(node.body if self.value(node.test) else node.orelse, spec)
        if isinstance(node, ast.Subscript):
            return self._subscript(node, spec)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            return self._call(node, node.func.id, spec)
        raise _Unknown(f"{ast.unparse(node)[:40]!r} is not followed")

    # -- by construct ------------------------------------------------------------------
    def _elementwise(self, operands: Sequence[ast.AST], spec: Spec) -> list[tuple[str, Spec]]:
        out = []
        for operand in operands:
            shape = self.shape(operand)
            if len(shape) > len(spec):
                raise _Unknown(f"{ast.unparse(operand)[:40]!r} has more axes than its result")
            tail = spec[len(spec) - len(shape) :]
            sub = tuple(
                np.zeros(1, dtype=np.int64) if n == 1 else axis
                for n, axis in zip(shape, tail, strict=True)
            )
            out += self.needs(operand, sub)
        return out

    def _matmul(self, left: ast.expr, right: ast.expr, spec: Spec) -> list[tuple[str, Spec]]:
        a, b = self.shape(left), self.shape(right)
        sa: Spec
        sb: Spec
        if len(a) == 2 and len(b) == 2:
            sa, sb = (spec[0], _all(a[1])), (_all(b[0]), spec[1])
        elif len(a) == 2 and len(b) == 1:
            sa, sb = (spec[0], _all(a[1])), (_all(b[0]),)
        elif len(a) == 1 and len(b) == 2:
            sa, sb = (_all(a[0]),), (_all(b[0]), spec[0])
        elif len(a) == 1 and len(b) == 1:
            sa, sb = (_all(a[0]),), (_all(b[0]),)
        else:
            raise _Unknown("a product of arrays of more than two axes")
        return self.needs(left, sa) + self.needs(right, sb)

    def _subscript(self, node: ast.Subscript, spec: Spec) -> list[tuple[str, Spec]]:
        shape = self.shape(node.value)
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        operand: list[np.ndarray] = []
        axis = 0
        for item in items:
            if isinstance(item, ast.Slice):
                positions = np.arange(shape[len(operand)])[self.evaluator._index(item)]
                operand.append(positions[spec[axis]])
                axis += 1
                continue
            value = self.value(item)
            if value is None:
                axis += 1  # a new axis of length 1
            elif isinstance(value, (int, np.integer)) and not isinstance(value, bool):
                n = shape[len(operand)]
                operand.append(np.array([int(value) % n if n else 0], dtype=np.int64))
            else:
                raise _Unknown(f"the index {ast.unparse(item)[:40]!r} picks by value")
        while len(operand) < len(shape):
            operand.append(spec[axis])
            axis += 1
        return self.needs(node.value, tuple(operand))

    def _call(self, node: ast.Call, name: str, spec: Spec) -> list[tuple[str, Spec]]:
        args = list(node.args)
        keywords = {str(k.arg): k.value for k in node.keywords}
        if name in _CONSTANTS:
            return []
        if name in _ELEMENTWISE:
            return self._elementwise(args, spec)
        if (name in DTYPES or name == "astype") and args:  # a conversion, element by element
            return self._elementwise(args[:1], spec)
        if name in ("matmul", "dot") and len(args) == 2:
            return self._matmul(args[0], args[1], spec)
        if name == "where" and len(args) == 3:
            return self._where(args, spec)
        if name in _REDUCTIONS and args:
            return self._reduction(args, keywords, spec)
        if name in ("cumsum", "cumprod") and args:
            return self._running(args, keywords, spec)
        if name == "transpose" and args:
            axes = self._axes(args[1] if len(args) > 1 else keywords.get("axes"))
            shape = self.shape(args[0])
            order = list(range(len(shape)))[::-1] if axes is None else axes
            operand: list[np.ndarray] = [np.zeros(0, dtype=np.int64)] * len(shape)
            for out_axis, in_axis in enumerate(order):
                operand[in_axis] = spec[out_axis]
            return self.needs(args[0], tuple(operand))
        if name == "outer" and len(args) == 2:
            if len(self.shape(args[0])) != 1 or len(self.shape(args[1])) != 1:
                raise _Unknown("outer of arrays that are not vectors")
            return self.needs(args[0], (spec[0],)) + self.needs(args[1], (spec[1],))
        if name == "einsum" and args:
            return self._einsum(args, spec)
        if name == "flip" and args:
            return self._moved(args, keywords, spec, lambda p, n: n - 1 - p)
        if name == "roll" and len(args) >= 2:
            shift = int(self.value(args[1]))
            return self._moved(args[:1] + args[2:], keywords, spec, lambda p, n: (p - shift) % n)
        raise _Unknown(f"{name}() is not followed")

    def _where(self, args: list[ast.expr], spec: Spec) -> list[tuple[str, Spec]]:
        """The condition's needs, and the branch it picks for one element (both branches'
        for several)."""
        found = self._elementwise([args[0]], spec)
        condition = np.asarray(self.value(args[0]))
        if any(axis.size != 1 for axis in spec) or condition.ndim > len(spec):
            return found + self._elementwise(args[1:], spec)
        tail = spec[len(spec) - condition.ndim :]
        at = tuple(int(a[0]) if n > 1 else 0 for a, n in zip(tail, condition.shape, strict=True))
        branch = args[1] if bool(condition[at]) else args[2]
        return found + self._elementwise([branch], spec)

    def _axes(self, node: ast.expr | None) -> list[int] | None:
        if node is None:
            return None
        value = self.value(node)
        if value is None:
            return None
        if isinstance(value, (tuple, list)):
            return [int(v) for v in value]
        return [int(value)]

    def _reduction(
        self, args: list[ast.expr], keywords: dict[str, ast.expr], spec: Spec
    ) -> list[tuple[str, Spec]]:
        shape = self.shape(args[0])
        axes = self._axes(args[1] if len(args) > 1 else keywords.get("axis"))
        if axes is None:
            return self.needs(args[0], tuple(_all(n) for n in shape))
        summed = {a % len(shape) for a in axes}
        rest = iter(spec)
        operand = tuple(_all(n) if i in summed else next(rest) for i, n in enumerate(shape))
        return self.needs(args[0], operand)

    def _running(
        self, args: list[ast.expr], keywords: dict[str, ast.expr], spec: Spec
    ) -> list[tuple[str, Spec]]:
        shape = self.shape(args[0])
        axes = self._axes(args[1] if len(args) > 1 else keywords.get("axis"))
        if axes is None or len(shape) != len(spec):
            raise _Unknown("a running sum over the flattened array")
        axis = axes[0] % len(shape)
        operand = list(spec)
        operand[axis] = np.arange(int(spec[axis].max(initial=-1)) + 1, dtype=np.int64)
        return self.needs(args[0], tuple(operand))

    def _moved(
        self,
        args: list[ast.expr],
        keywords: dict[str, ast.expr],
        spec: Spec,
        move: Any,
    ) -> list[tuple[str, Spec]]:
        shape = self.shape(args[0])
        axes = self._axes(args[1] if len(args) > 1 else keywords.get("axis"))
        if axes is None and len(shape) != 1:
            axes = list(range(len(shape)))
        axes = [0] if axes is None else [a % len(shape) for a in axes]
        pairs = enumerate(zip(spec, shape, strict=True))
        operand = tuple(move(axis, n) if i in axes else axis for i, (axis, n) in pairs)
        return self.needs(args[0], operand)

    def _einsum(self, args: list[ast.expr], spec: Spec) -> list[tuple[str, Spec]]:
        subscripts = self.value(args[0])
        if not isinstance(subscripts, str) or "." in subscripts:
            raise _Unknown("einsum without explicit letters")
        text = subscripts.replace(" ", "")
        inputs_text, _, output = text.partition("->")
        inputs = inputs_text.split(",")
        if "->" not in text:
            letters = "".join(inputs)
            output = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
        operands = args[1:]
        if len(inputs) != len(operands) or len(output) != len(spec):
            raise _Unknown(f"einsum {subscripts!r} does not match its operands")
        at = dict(zip(output, spec, strict=True))
        out = []
        for letters, operand in zip(inputs, operands, strict=True):
            shape = self.shape(operand)
            if len(letters) != len(shape):
                raise _Unknown(f"einsum {subscripts!r} does not match its operands")
            if any(letters.count(c) > 1 and c not in at for c in letters):
                raise _Unknown(f"einsum {subscripts!r} sums along a diagonal")
            sub = tuple(at[c] if c in at else _all(n) for c, n in zip(letters, shape, strict=True))
            out += self.needs(operand, sub)
        return out


def _all(n: int) -> np.ndarray:
    return np.arange(n, dtype=np.int64)
