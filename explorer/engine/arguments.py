"""A custom kernel's declared arguments: read from its header, sized, checked, bound, judged.

The header of a ``family = "custom"`` kernel declares every parameter under ``[args.NAME]``
(see ``docs/custom.md``). This module turns that table into a
:class:`~explorer.families.custom.CustomSpec` (with messages naming the file, the parameter
and the key), evaluates its expressions for one launch, refuses a buffer larger than the
device allows before anything is allocated, passes the arguments to OpenCL, computes the
reference (a numpy expression, or another kernel run on the same inputs) and gives the verdict.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from explorer.description.expressions import ExpressionError, evaluate, names_in
from explorer.description.numpy_expressions import evaluate_array
from explorer.engine.launch.verify import verify
from explorer.engine.records import DeviceInfo, Refusal, Variant, Verdict
from explorer.families import Family, get_family
from explorer.families.base import Reference
from explorer.families.custom import (
    ACCESS,
    CONTENTS,
    BufferDecl,
    Custom,
    CustomSpec,
    Declaration,
    DeclarationError,
    LocalDecl,
    ScalarDecl,
    buffer_array,
    element_type,
    shown,
)

if TYPE_CHECKING:
    from explorer.engine.header.signature import Parameter

LOCAL_NAMES = ("L0", "L1", "L2")
_BUFFER_KEYS = {
    "buffer", "count", "contents", "value", "step", "seed", "range", "file", "data",
    "access", "result", "shape", "null",
}  # fmt: skip
_LOCAL_KEYS = {"local", "count"}
_SCALAR_KEYS = {"scalar", "value"}


def family_for(variant: Variant) -> Family:
    """The family object that answers for ``variant``: its own declarations for a custom
    kernel, the registry's family otherwise."""
    if variant.custom is not None:
        return Custom.for_spec(variant.custom)
    return get_family(variant.family)


# -- the header ------------------------------------------------------------------------------


def parse_custom(meta: dict[str, Any], where: str, folder: Path, defines: set[str]) -> CustomSpec:
    """The ``[sizes]``, ``[args.*]`` and ``[reference]`` tables of a custom header."""
    sizes_table = meta.get("sizes", {})
    if not isinstance(sizes_table, dict) or not all(
        isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in sizes_table.values()
    ):
        raise DeclarationError(
            f"{where}: [sizes] of a custom kernel names each size with a positive integer, "
            'e.g. N = 1024 (a list of constraints goes in "constraints")'
        )
    args = meta.get("args")
    if not isinstance(args, dict) or not args:
        raise DeclarationError(
            f"{where}: a custom kernel declares its parameters as tables [args.NAME] "
            '(buffer = "float", count = "N", ...; local = "float", count = "L0"; '
            'scalar = "float", value = 2.0)'
        )
    known = set(sizes_table) | defines | {"COMPUTE_UNITS", *LOCAL_NAMES}
    params = tuple(_declaration(name, table, where, folder, known) for name, table in args.items())
    reference = meta.get("reference", {})
    if not isinstance(reference, dict):
        raise DeclarationError(f"{where}: [reference] must be a table (numpy = ..., kernel = ...)")
    unknown = set(reference) - {"numpy", "kernel", "name", "terms"}
    if unknown:
        raise DeclarationError(
            f"{where}: [reference] has unknown keys {sorted(unknown)}; "
            "keys: numpy, kernel, name, terms"
        )
    numpy_ref: tuple[tuple[str, str], ...] = ()
    spec_probe = CustomSpec(tuple(sizes_table.items()), params)
    results = [b.name for b in spec_probe.results]
    given = reference.get("numpy")
    if isinstance(given, str):
        if not results:
            raise DeclarationError(f"{where}: [reference] numpy: no buffer is a result")
        numpy_ref = ((results[0], given),)
    elif isinstance(given, dict):
        for result, text in given.items():
            if result not in results or not isinstance(text, str):
                raise DeclarationError(
                    f"{where}: [reference] numpy.{result}: give an expression for a result "
                    f"buffer ({', '.join(results) or 'none'})"
                )
        numpy_ref = tuple((str(k), str(v)) for k, v in given.items())
    elif given is not None:
        raise DeclarationError(f"{where}: [reference] numpy must be an expression or a table")
    kernel_file = reference.get("kernel", "")
    if not isinstance(kernel_file, str):
        raise DeclarationError(f"{where}: [reference] kernel must be a file name")
    if numpy_ref and kernel_file:
        raise DeclarationError(f"{where}: [reference] gives numpy and kernel: choose one")
    terms = str(reference.get("terms", "1"))
    _check_names(terms, known, where, "[reference]", "terms")
    return CustomSpec(
        sizes=tuple((str(k), int(v)) for k, v in sizes_table.items()),
        params=params,
        reference_numpy=numpy_ref,
        reference_kernel=str((folder / kernel_file).resolve()) if kernel_file else "",
        reference_kernel_name=str(reference.get("name", "")),
        terms=terms,
    )


def _check_names(expression: str, known: set[str], where: str, param: str, key: str) -> None:
    try:
        unknown = names_in(expression) - known
    except ExpressionError as exc:
        raise DeclarationError(f"{where}: {param}: key {key!r}: {exc}") from None
    if unknown:
        raise DeclarationError(
            f"{where}: {param}: key {key!r}: {expression!r} uses {sorted(unknown)}; known names "
            f"are the sizes, the defines, COMPUTE_UNITS and L0-L2 ({', '.join(sorted(known))})"
        )


def _declaration(
    name: str, table: object, where: str, folder: Path, known: set[str]
) -> Declaration:
    param = f"parameter {name!r}"
    if not isinstance(table, dict):
        raise DeclarationError(f"{where}: {param}: declare it as a table [args.{name}]")
    kinds = [k for k in ("buffer", "local", "scalar") if k in table]
    if len(kinds) != 1:
        raise DeclarationError(
            f"{where}: {param}: give exactly one of the keys 'buffer', 'local' or 'scalar' "
            "(its element type)"
        )
    kind = kinds[0]
    allowed = {"buffer": _BUFFER_KEYS, "local": _LOCAL_KEYS, "scalar": _SCALAR_KEYS}[kind]
    extra = set(table) - allowed
    if extra:
        raise DeclarationError(
            f"{where}: {param}: key {sorted(extra)[0]!r} does not apply to a {kind}; "
            f"its keys: {', '.join(sorted(allowed))}"
        )

    def fail(key: str, message: str) -> DeclarationError:
        return DeclarationError(f"{where}: {param}: key {key!r}: {message}")

    type_name = table[kind]
    if not isinstance(type_name, str):
        raise fail(kind, 'must be an element type such as "float" or "uint4"')
    try:
        element_type(type_name)
    except DeclarationError as exc:
        raise fail(kind, str(exc)) from None

    def expression(key: str, default: str | None = None) -> str:
        value = table.get(key, default)
        if value is None:
            raise fail(key, 'missing (an expression over the sizes, e.g. "N")')
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise fail(key, "must be an integer or an expression")
        text = str(value)
        _check_names(text, known, where, param, key)
        return text

    if kind == "local":
        return LocalDecl(name, type_name, expression("count"))
    if kind == "scalar":
        value = table.get("value")
        if value is None:
            raise fail("value", "missing (a number or an expression over the sizes)")
        values = value if isinstance(value, list) else [value]
        texts = []
        for v in values:
            if isinstance(v, bool) or not isinstance(v, (int, float, str)):
                raise fail("value", "must be a number, an expression, or a list of them")
            if isinstance(v, str):
                _check_names(v, known, where, param, "value")
            texts.append(str(v))
        return ScalarDecl(name, type_name, tuple(texts))

    contents_value = table.get("contents", "random")
    value = table.get("value", 0.0)
    if isinstance(contents_value, (int, float)) and not isinstance(contents_value, bool):
        contents, value = "constant", contents_value
    elif isinstance(contents_value, str) and contents_value in CONTENTS:
        contents = contents_value
    else:
        raise fail("contents", f"must be a number or one of {', '.join(CONTENTS)}")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise fail("value", "must be a number")
    access = table.get("access", "readwrite")
    if access not in ACCESS:
        raise fail("access", f"must be one of {', '.join(ACCESS)}")
    file_name = table.get("file", "")
    if contents in ("image", "npy"):
        if not isinstance(file_name, str) or not file_name:
            raise fail("file", f"contents {contents!r} needs a file")
        if not (folder / file_name).exists():
            raise fail("file", f"{folder / file_name} does not exist")
    low = high = None
    if "range" in table:
        bounds = table["range"]
        if (
            not isinstance(bounds, list)
            or len(bounds) != 2
            or not all(isinstance(b, (int, float)) and not isinstance(b, bool) for b in bounds)
            or not bounds[0] < bounds[1]
        ):
            raise fail("range", "must be [low, high] with low < high")
        low, high = float(bounds[0]), float(bounds[1])
    seed = table.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise fail("seed", "must be an integer")
    data = table.get("data", [])
    if not isinstance(data, list) or not all(isinstance(d, (int, float)) for d in data):
        raise fail("data", "must be a list of numbers")
    if data and "contents" not in table:
        contents = "data"
    shape_value = table.get("shape", [])
    if shape_value == "strip":
        shape_value = []
    if not isinstance(shape_value, list) or len(shape_value) not in (0, 2):
        raise fail("shape", 'must be [rows, cols] (expressions) or "strip"')
    shape = []
    for item in shape_value:
        if isinstance(item, bool) or not isinstance(item, (int, str)):
            raise fail("shape", "rows and cols must be integers or expressions")
        _check_names(str(item), known, where, param, "shape")
        shape.append(str(item))
    result = table.get("result", False)
    if not isinstance(result, bool):
        raise fail("result", "must be true or false")
    if result and access == "read":
        raise fail("result", "a result buffer is written: its access cannot be 'read'")
    return BufferDecl(
        name=name,
        type=type_name,
        count=expression("count"),
        contents=contents,
        value=float(value),
        step=float(table.get("step", 1.0)),
        seed=seed,
        low=low,
        high=high,
        file=str((folder / file_name).resolve()) if file_name else "",
        data=tuple(float(d) for d in data),
        access=access,
        result=result,
        shape=tuple(shape),
        null=bool(table.get("null", False)),
    )


# -- one launch's values ---------------------------------------------------------------------


def launch_names(
    sizes: dict[str, int],
    defines: dict[str, int],
    local_size: tuple[int, ...],
    compute_units: int,
) -> dict[str, int]:
    """The names a declaration's expressions see for one launch."""
    names = {**sizes, **defines, "COMPUTE_UNITS": compute_units}
    names.update({LOCAL_NAMES[i]: v for i, v in enumerate(local_size)})
    return names


def _value(expression: str, names: dict[str, int], param: str, key: str) -> int:
    try:
        return evaluate(expression, names)
    except ExpressionError as exc:
        raise DeclarationError(f"parameter {param!r}: key {key!r}: {exc}") from None


def buffer_counts(spec: CustomSpec, names: dict[str, int]) -> dict[str, int]:
    """Elements of every buffer and ``__local`` pointer, evaluated; at least 0."""
    counts = {}
    for p in spec.params:
        if isinstance(p, (BufferDecl, LocalDecl)):
            count = _value(p.count, names, p.name, "count")
            if count < 0:
                raise DeclarationError(f"parameter {p.name!r}: key 'count': {count} is negative")
            counts[p.name] = count
    return counts


def display_shapes(spec: CustomSpec, names: dict[str, int]) -> dict[str, tuple[int, ...]]:
    """How each buffer is shown: its declared (rows, cols), or its length as a strip."""
    counts = buffer_counts(spec, names)
    shapes: dict[str, tuple[int, ...]] = {}
    for b in spec.buffers:
        lanes = element_type(b.type).lanes
        if b.shape:
            rows, cols = (_value(s, names, b.name, "shape") for s in b.shape)
            if rows * cols != counts[b.name] * lanes:
                raise DeclarationError(
                    f"parameter {b.name!r}: key 'shape': {rows}×{cols} is not its "
                    f"{counts[b.name] * lanes} elements"
                )
            shapes[b.name] = (rows, cols)
        else:
            shapes[b.name] = (counts[b.name] * lanes,)
    return shapes


def local_bytes(spec: CustomSpec, names: dict[str, int]) -> int:
    """Bytes of the ``__local`` pointer arguments, at their declared counts."""
    counts = buffer_counts(spec, names)
    return sum(counts[p.name] * element_type(p.type).nbytes for p in spec.locals)


def allocation_refusal(
    spec: CustomSpec, names: dict[str, int], device: DeviceInfo
) -> Refusal | None:
    """A buffer larger than the device's largest allocation, refused before any is made."""
    counts = buffer_counts(spec, names)
    for b in spec.buffers:
        size = counts[b.name] * element_type(b.type).nbytes
        if device.max_alloc_bytes and size > device.max_alloc_bytes:
            return Refusal(
                f"buffer {b.name!r} needs {size} bytes ({counts[b.name]} × {b.type}); "
                f"{device.name} allocates at most {device.max_alloc_bytes} bytes at once.",
                f"Make {b.count} smaller.",
            )
    return None


def initial_arrays(
    spec: CustomSpec, names: dict[str, int], text: str = "IOU"
) -> dict[str, np.ndarray]:
    """Every buffer's initial contents, as declared."""
    counts = buffer_counts(spec, names)
    shapes = display_shapes(spec, names)
    return {
        b.name: buffer_array(b, counts[b.name], shapes[b.name], text)
        for b in spec.buffers
        if not b.null
    }


def scalar_value(decl: ScalarDecl, names: dict[str, int]) -> np.ndarray:
    """A scalar's bytes as numpy holds them (a one-element array; lanes for vectors)."""
    et = element_type(decl.type)
    values: list[float] = []
    for text in decl.value:
        try:
            values.append(float(text))
        except ValueError:
            values.append(float(_value(text, names, decl.name, "value")))
    if et.width == 1 and len(values) > 1:
        # Several values of a scalar type: the bytes of a struct passed by value (.sim files).
        return np.array(values, dtype=np.float64).astype(et.base)
    if len(values) == 1:
        values = values * et.width
    if len(values) != et.width:
        raise DeclarationError(
            f"parameter {decl.name!r}: key 'value': {len(values)} values for a {decl.type}"
        )
    values += [0.0] * (et.lanes - et.width)
    return np.array(values, dtype=np.float64).astype(et.base)


def check_parameters(spec: CustomSpec, params: list[Parameter], kernel: str) -> None:
    """Every parameter declared once, as what it is in the source."""
    declared = {p.name for p in spec.params}
    missing = [p.name for p in params if p.name not in declared]
    if missing:
        raise DeclarationError(
            f"{kernel} has parameters {missing} that the header does not declare "
            "(add a table [args.NAME] for each)"
        )
    extra = declared - {p.name for p in params}
    if extra:
        raise DeclarationError(
            f"the header declares {sorted(extra)}, which {kernel} has no parameter called"
        )
    for p in params:
        decl = spec.declaration(p.name)
        want = {"global": BufferDecl, "constant": BufferDecl, "local": LocalDecl}.get(
            p.space, ScalarDecl
        )
        if not isinstance(decl, want):
            what = {BufferDecl: "buffer", LocalDecl: "local", ScalarDecl: "scalar"}[want]
            raise DeclarationError(
                f"parameter {p.name!r} is a {p.space} parameter in the source: declare it "
                f"with the key {what!r}"
            )


# -- OpenCL ----------------------------------------------------------------------------------


@dataclass
class BoundArguments:
    """The kernel's arguments in place, and the buffers that can be read back or reset."""

    args: list[Any]
    buffers: dict[str, Any]
    param_bytes: list[int]
    upload_ms: float


def bind_arguments(
    cl: Any,
    context: Any,
    queue: Any,
    spec: CustomSpec,
    params: list[Parameter],
    arrays: dict[str, np.ndarray],
    names: dict[str, int],
) -> BoundArguments:
    """Buffers created from their initial contents, ``__local`` sizes, scalar values."""
    mf = cl.mem_flags
    counts = buffer_counts(spec, names)
    args: list[Any] = []
    buffers: dict[str, Any] = {}
    param_bytes: list[int] = []
    upload_ms = 0.0
    for p in params:
        decl = spec.declaration(p.name)
        if isinstance(decl, LocalDecl):
            size = counts[decl.name] * element_type(decl.type).nbytes
            args.append(cl.LocalMemory(max(size, 1)))
            param_bytes.append(size)
        elif isinstance(decl, ScalarDecl):
            value = scalar_value(decl, names)
            args.append(value[0] if value.size == 1 else value)
            param_bytes.append(0)
        elif decl.null:
            args.append(None)
            param_bytes.append(0)
        else:
            host = np.ascontiguousarray(arrays[decl.name])
            flags = mf.READ_ONLY if decl.access == "read" else mf.READ_WRITE
            buf = cl.Buffer(context, flags, max(host.nbytes, 4))
            if host.nbytes and decl.contents != "noinit":  # noinit: the host leaves it alone
                started = time.perf_counter()
                cl.enqueue_copy(queue, buf, host).wait()
                upload_ms += (time.perf_counter() - started) * 1e3
            args.append(buf)
            buffers[decl.name] = buf
            param_bytes.append(host.nbytes)
    return BoundArguments(args, buffers, param_bytes, upload_ms)


def reset_buffers(
    cl: Any, queue: Any, spec: CustomSpec, bound: BoundArguments, arrays: dict[str, np.ndarray]
) -> None:
    """Every written buffer back to its initial contents, so each launch starts the same."""
    for b in spec.buffers:
        written = b.access != "read" and b.contents != "noinit"
        if written and b.name in bound.buffers and arrays[b.name].nbytes:
            cl.enqueue_copy(queue, bound.buffers[b.name], np.ascontiguousarray(arrays[b.name]))
    queue.finish()


def read_results(
    cl: Any, queue: Any, spec: CustomSpec, bound: BoundArguments, arrays: dict[str, np.ndarray]
) -> dict[str, np.ndarray]:
    """The result buffers as the kernel left them."""
    out = {}
    for b in spec.results:
        host = np.empty_like(arrays[b.name])
        if host.nbytes:
            cl.enqueue_copy(queue, host, bound.buffers[b.name]).wait()
        out[b.name] = host
    return out


def run_reference_kernel(
    session: Any,
    context: Any,
    queue: Any,
    device_key: str,
    spec: CustomSpec,
    kernel_name: str,
    arrays: dict[str, np.ndarray],
    names: dict[str, int],
    options: tuple[str, ...],
    global_size: tuple[int, ...],
    local_size: tuple[int, ...],
) -> dict[str, np.ndarray]:
    """The results another kernel file (the naive version) computes from the same inputs."""
    from explorer.engine.header.signature import kernel_parameters

    path = Path(spec.reference_kernel)
    try:
        source = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DeclarationError(f"[reference] kernel: cannot read {path}: {exc.strerror}") from None
    name = spec.reference_kernel_name or kernel_name
    kernel = session.cache.kernel(session.cl, context, device_key, source, options, name, path.name)
    params = kernel_parameters(source, name, dict(names))
    check_parameters(spec, params, f"the reference {name}")
    bound = bind_arguments(session.cl, context, queue, spec, params, arrays, names)
    kernel.set_args(*bound.args)
    session.cl.enqueue_nd_range_kernel(queue, kernel, global_size, local_size).wait()
    return read_results(session.cl, queue, spec, bound, arrays)


def references(
    spec: CustomSpec,
    arrays: dict[str, np.ndarray],
    names: dict[str, int],
    kernel_results: dict[str, np.ndarray] | None = None,
) -> dict[str, Reference]:
    """The expected value of every checked result, in float64, with its tolerance terms."""
    shapes = display_shapes(spec, names)
    terms = max(1, _value(spec.terms, names, "[reference]", "terms"))
    if kernel_results is not None:
        return {
            k: Reference(v.astype(np.float64), np.abs(v.astype(np.float64)), terms)
            for k, v in kernel_results.items()
        }
    scope: dict[str, Any] = dict(names)
    for decl in spec.scalars:
        value = scalar_value(decl, names)
        scope[decl.name] = value[0] if value.size == 1 else value
    exact = {**scope, **{k: shown(v, shapes[k]) for k, v in arrays.items()}}
    # The same expression over |inputs| bounds the size of the terms summed (exact for sums
    # and products); integer arrays stay as they are, since they may be indices.
    magnitude_scope = {
        k: np.abs(v) if np.asarray(v).dtype.kind == "f" else v for k, v in exact.items()
    }
    out = {}
    for result, expression in spec.reference_numpy:
        try:
            value = evaluate_array(expression, exact).astype(np.float64)
        except ExpressionError as exc:
            raise DeclarationError(f"[reference] numpy for {result!r}: {exc}") from None
        try:
            bound = np.abs(evaluate_array(expression, magnitude_scope).astype(np.float64))
            magnitude = np.maximum(bound, np.abs(value)) if bound.shape == value.shape else None
        except (ExpressionError, ValueError):
            magnitude = None
        expected_shape = shapes[result]
        if value.size == math.prod(expected_shape):
            value = value.reshape(expected_shape)
            magnitude = np.abs(value) if magnitude is None else magnitude.reshape(expected_shape)
        else:
            raise DeclarationError(
                f"[reference] numpy for {result!r} has {value.size} values; the buffer "
                f"has {math.prod(expected_shape)}"
            )
        out[result] = Reference(value, magnitude, terms)
    return out


@dataclass(frozen=True)
class Judged:
    """The verdict over every result, the one shown first and each result as shown."""

    verdict: Verdict
    output: np.ndarray
    reference: np.ndarray | None
    outputs: dict[str, np.ndarray]


def judge_results(
    spec: CustomSpec,
    results: dict[str, np.ndarray],
    arrays: dict[str, np.ndarray],
    refs: dict[str, Reference] | None,
    names: dict[str, int],
) -> Judged:
    """Each result against its reference (when there is one), and against its initial
    contents: a result the kernel left as it was is named in ``unchanged``."""
    shapes = display_shapes(spec, names)
    outputs = {k: shown(v, shapes[k]) for k, v in results.items()}
    unchanged = tuple(
        k
        for k, v in results.items()
        if v.size and np.array_equal(v, arrays[k], equal_nan=v.dtype.kind == "f")
    )
    first = next(iter(outputs)) if outputs else ""
    output = outputs.get(first, np.zeros(0))
    if not refs:
        verdict = Verdict(
            verified=False,
            max_abs_error=float("nan"),
            max_rel_error=float("nan"),
            mismatches=0,
            tolerance="no reference",
            checked=False,
            unchanged=unchanged,
        )
        return Judged(verdict, output, None, outputs)
    verdicts = [
        verify(outputs[k], ref, element_type(spec.declaration(k).type).base)
        for k, ref in refs.items()
    ]
    verdict = Verdict(
        verified=all(v.verified for v in verdicts),
        max_abs_error=max(v.max_abs_error for v in verdicts),
        max_rel_error=max(v.max_rel_error for v in verdicts),
        mismatches=sum(v.mismatches for v in verdicts),
        tolerance=verdicts[0].tolerance,
        not_a_number=sum(v.not_a_number for v in verdicts),
        unchanged=unchanged,
    )
    shown_ref = refs[first].value if first in refs else None
    return Judged(verdict, output, shown_ref, outputs)


def buffer_bytes(spec: CustomSpec, names: dict[str, int]) -> float:
    """Bytes the kernel's buffers hold: what it must move at least, if it touches each once."""
    counts = buffer_counts(spec, names)
    return float(sum(counts[b.name] * element_type(b.type).nbytes for b in spec.buffers))


def shown_shapes(
    variant: Variant,
    sizes: dict[str, int],
    defines: dict[str, int],
    local_size: tuple[int, ...],
    compute_units: int,
) -> dict[str, tuple[int, ...]]:
    """How each buffer is drawn (rows first): a custom kernel's declared shapes (a strip
    where it declares none), the family's shapes otherwise."""
    spec = variant.custom
    if spec is None:
        return get_family(variant.family).shapes(sizes)
    names = launch_names(
        {**dict(spec.sizes), **sizes},
        {**variant.default_defines, **defines},
        local_size,
        compute_units,
    )
    try:
        return display_shapes(spec, names)
    except DeclarationError:
        return {}
