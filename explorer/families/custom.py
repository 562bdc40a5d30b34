"""A kernel that declares every parameter itself: buffers, ``__local`` sizes and scalars.

Most kernels people bring fit none of the fixed families (an extra scalar, five buffers,
``uint`` indices beside ``float`` data, a ``__local`` buffer the host sizes). Their header
says what each parameter is (:mod:`explorer.description.declarations` reads it); this module
turns those declarations into a launch description at given sizes, as a family does.

Counts, shapes and scalar values are expressions over the named sizes, the defines,
``L0``-``L2`` (the local size) and ``COMPUTE_UNITS``.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from explorer.description.declarations import (
    CONTENTS,
    BufferDecl,
    CustomSpec,
    DeclarationError,
    LocalDecl,
    SamplerDecl,
    ScalarDecl,
)
from explorer.description.elements import (
    element_type,
)
from explorer.description.expressions import ExpressionError, evaluate
from explorer.description.launch import (
    BufferParam,
    Check,
    Contents,
    Expected,
    Fill,
    ImageFormat,
    Iota,
    LaunchDescription,
    LocalParam,
    NoInit,
    NpyFile,
    NumpyExpression,
    Param,
    Picture,
    Random,
    ReferenceKernel,
    SamplerParam,
    ScalarParam,
    Setting,
    Values,
)
from explorer.description.reference_needs import Needs, expression_needs, reference_scope
from explorer.description.regions import RegionError, checked_region
from explorer.families.base import InputError, KernelModel, ProbeDescription, Sizes
from explorer.paths import UserFileError, load_user_array

# A scalar value written as a decimal integer: taken as one, exactly.
_DECIMAL = re.compile(r"[+-]?[0-9]+")


def _value(expression: str, names: Mapping[str, int], param: str, key: str) -> int:
    try:
        return evaluate(expression, dict(names))
    except ExpressionError as exc:
        raise DeclarationError(f"parameter {param!r}: key {key!r}: {exc}") from None


def _seed(decl: BufferDecl) -> int:
    return decl.seed if decl.seed is not None else zlib.crc32(decl.name.encode())


def _contents(decl: BufferDecl, text: str) -> Contents:
    """The recipe a declaration's ``contents`` names."""
    kind = decl.contents
    if kind == "random":
        return Random(_seed(decl), decl.low, decl.high)
    if kind in ("zeros", "ones", "constant"):
        return Fill({"zeros": 0.0, "ones": 1.0}.get(kind, decl.value))
    if kind == "iota":
        return Iota(decl.value, decl.step)
    if kind == "iou":
        return Picture(text=text)
    if kind == "image":
        return Picture(file=decl.file)
    if kind == "npy":
        return NpyFile(decl.file)
    if kind == "data":
        return Values(decl.data)
    if kind == "noinit":
        return NoInit()
    raise InputError(f"parameter {decl.name!r}: contents {kind!r} is not one of {CONTENTS}")


class Custom(KernelModel):
    """The kernels that declare their own parameters. The registry's instance has no
    declarations; :meth:`for_header` gives the model of one kernel's header."""

    family = "custom"
    order = 900
    description = "Your own kernel: every parameter declared in its header."
    input_presets = ("declared",)
    launch_global = ("N",)
    launch_local = ("64",)

    own_sizes: ClassVar[bool] = True

    def __init__(self, spec: CustomSpec | None = None) -> None:
        self.spec = spec
        if spec is not None:
            self.size_names = tuple(name for name, _ in spec.sizes)
            self.roles = tuple(p.name for p in spec.params)
            self.default_sizes = dict(spec.sizes)  # type: ignore[misc]

    constraints_key: ClassVar[str] = "constraints"  # [sizes] holds the named sizes

    def read_declarations(self, meta: dict[str, Any], where: str, folder: Path) -> CustomSpec:
        """The header's ``[sizes]``, ``[args.*]`` and ``[reference]`` tables (see
        :mod:`explorer.description.declarations`)."""
        from explorer.description.declarations import parse_custom

        defines = meta.get("defines", {})
        return parse_custom(
            meta, where, folder, set(defines) if isinstance(defines, dict) else set()
        )

    def for_header(self, declarations: Any) -> KernelModel:
        return Custom(declarations) if isinstance(declarations, CustomSpec) else self

    def header_args(self, meta: dict[str, Any], where: str) -> tuple[str, ...]:
        """Every declared parameter, by name (matched to the kernel's by name)."""
        return self.roles

    def header_dtype(self, meta: dict[str, Any], where: str) -> str:
        """The first result's element type (what the run's rates are quoted in)."""
        results = self.spec.results if self.spec is not None else ()
        return element_type(results[0].type).base.name if results else "float32"

    def check_sizes(self, sizes: Mapping[str, int | None]) -> Sizes:
        """The kernel's own named sizes, completed with the header's values."""
        given = {k: v for k, v in sizes.items() if v is not None}
        unknown = set(given) - set(self.size_names)
        if unknown:
            raise InputError(
                f"this kernel has no size {sorted(unknown)}; its sizes: {list(self.size_names)}"
            )
        full = {**self.default_sizes, **given}
        bad = {k: v for k, v in full.items() if int(v) < 1}
        if bad:
            raise InputError(f"sizes must be at least 1: {bad}")
        return {k: int(full[k]) for k in self.size_names}

    def describe(
        self, setting: Setting, args: tuple[str, ...], layout: str, dtype: np.dtype
    ) -> LaunchDescription:
        """Every declaration evaluated at ``setting``: counts, shapes and scalar values are
        expressions over the sizes, the defines, ``L0``-``L2`` and ``COMPUTE_UNITS``."""
        if self.spec is None:
            raise DeclarationError("a custom kernel declares its parameters in its header")
        spec = self.spec
        sizes = {**dict(spec.sizes), **setting.sizes}
        names = Setting(sizes, setting.defines, setting.local_size, setting.compute_units).names
        terms = max(1, _value(spec.terms, names, "[reference]", "terms"))
        numpy_checks = dict(spec.reference_numpy)
        results = {b.name for b in spec.results}
        params: list[Param] = []
        for decl in spec.params:
            if isinstance(decl, LocalDecl):
                count = _count(decl.count, names, decl.name)
                params.append(LocalParam(decl.name, count * element_type(decl.type).nbytes))
            elif isinstance(decl, ScalarDecl):
                params.append(ScalarParam(decl.name, _scalar(decl, names), decl.type))
            elif isinstance(decl, SamplerDecl):
                params.append(SamplerParam(decl.name, decl.normalized, decl.address, decl.filter))
            else:
                check = _check(decl, spec, numpy_checks, terms)
                params.append(_buffer(decl, names, setting.text, decl.name in results, check))
        return LaunchDescription(tuple(params), by_name=True)

    def probe(
        self, setting: Setting, args: tuple[str, ...], layout: str, dtype: np.dtype, seed: int
    ) -> ProbeDescription | str:
        """The same launch with random contents in place of the placeholders a header gives
        its float inputs (zeros, ones, a constant, a picture), and a fresh draw of every
        buffer declared random (in its declared range). Nothing else changes: integer
        inputs may be indices, counts or sizes, an iota may be a sorted precondition, a
        ``.npy`` file or listed data are the person's own, and a result starts from what
        its kernel expects."""
        description = self.describe(setting, args, layout, dtype)
        results = description.results
        if not description.checked:
            return "nothing is compared: the kernel has no reference"
        if any(isinstance(b.check, Expected) for b in results):
            return "its answers are given arrays, which hold for the inputs given with them"
        placeholders = [b for b in description.buffers if _placeholder(b)]
        if not placeholders:
            return (
                "no input holds a placeholder a random probe may replace (float data of "
                "zeros, ones, a constant or a picture)"
            )
        params = tuple(_probed(p, seed) for p in description.params)
        hides = "; ".join(_placeholder_words(b) for b in placeholders)
        return ProbeDescription(replace(description, params=params), "the declared contents", hides)

    def reference_needs(
        self,
        setting: Setting,
        inputs: Mapping[str, np.ndarray],
        output: str,
        where: tuple[int, ...],
    ) -> Needs | str:
        """By the header's numpy reference, where it makes them known; an answer given as
        an array or computed by another kernel says nothing of which inputs it read."""
        if self.spec is None:
            return "a custom kernel declares its parameters in its header"
        description = self.describe(setting, self.roles, "row-major", np.dtype("float32"))
        result = next((b for b in description.results if b.name == output), None)
        if result is None:
            return f"{output} is not one of the kernel's results"
        check = result.check
        if isinstance(check, NumpyExpression):
            sizes = {**dict(self.spec.sizes), **setting.sizes}
            names = Setting(sizes, setting.defines, setting.local_size, setting.compute_units)
            scope = reference_scope(description, inputs, names.names)
            shapes = {b.name: b.shown_shape for b in description.buffers if b.name in inputs}
            return expression_needs(check.expression, scope, shapes, result.shown_shape, where)
        if isinstance(check, Expected):
            source = check.source or "the expected values"
            return f"the answer is an array ({source}), which does not say what it was made from"
        if isinstance(check, ReferenceKernel):
            return f"the answer comes from another kernel ({Path(check.path).name})"
        return "the kernel has no reference"


def _placeholder(p: Param) -> bool:
    """A read-only input whose contents stand in for data: float zeros, ones or a constant,
    or a picture."""
    if not isinstance(p, BufferParam) or p.null or not p.count or p.access != "read":
        return False
    c = p.contents
    return isinstance(c, Picture) or (isinstance(c, Fill) and p.element.base.kind == "f")


def _probed(p: Param, seed: int) -> Param:
    """The parameter as the probe passes it: a placeholder, or a buffer declared random (drawn
    again), with random contents; any other as it is."""
    if not isinstance(p, BufferParam) or p.null:
        return p
    if _placeholder(p) or isinstance(p.contents, Random):
        return replace(p, contents=_probe_contents(p, seed))
    return p


def _probe_contents(b: BufferParam, seed: int) -> Contents:
    own = zlib.crc32(f"{seed}:{b.name}".encode())
    c = b.contents
    if isinstance(c, Random):
        return Random(own, c.low, c.high)
    if isinstance(c, Picture):  # a picture's values: 0 to 1, or 0 to 255 in integers
        return Random(own, 0.0, 256.0) if b.element.base.kind in "iu" else Random(own, 0.0, 1.0)
    return Random(own)


def _placeholder_words(b: BufferParam) -> str:
    c = b.contents
    if isinstance(c, Picture):
        return f"{b.name} is an image" if c.file else f"{b.name} is the {c.text} picture"
    assert isinstance(c, Fill)
    return f"{b.name} is {c.value:g} everywhere"


def _count(expression: str, names: Mapping[str, int], param: str) -> int:
    count = _value(expression, names, param, "count")
    if count < 0:
        raise DeclarationError(f"parameter {param!r}: key 'count': {count} is negative")
    return count


def _scalar(decl: ScalarDecl, names: Mapping[str, int]) -> tuple[float, ...]:
    """Each value of a scalar: a decimal integer exactly (a ``ulong`` past float64's 53
    bits), another number as a float, an expression over the sizes as its integer."""
    values: list[float] = []
    for text in decl.value:
        if _DECIMAL.fullmatch(text.strip()):
            values.append(int(text))
            continue
        try:
            values.append(float(text))
        except ValueError:
            values.append(_value(text, names, decl.name, "value"))
    return tuple(values)


def _check(
    decl: BufferDecl, spec: CustomSpec, numpy_checks: dict[str, str], terms: int
) -> Check | None:
    if decl.name not in {b.name for b in spec.results}:
        return None
    if decl.name in numpy_checks:
        return NumpyExpression(numpy_checks[decl.name], terms)
    expected = dict(spec.reference_expected)
    if decl.name in expected:
        try:
            value = load_user_array(expected[decl.name], "array file")
        except UserFileError as exc:
            raise DeclarationError(
                f"parameter {decl.name!r}: [reference] expected: {exc}"
            ) from None
        return Expected(value, terms, spec.expected_from or "the expected values")
    if spec.reference_kernel:
        return ReferenceKernel(spec.reference_kernel, spec.reference_kernel_name, terms)
    return None


def _buffer(
    decl: BufferDecl, names: Mapping[str, int], text: str, result: bool, check: Check | None
) -> BufferParam:
    et = element_type(decl.type)
    count = _count(decl.count, names, decl.name)
    shape: tuple[int, ...] = (count, et.lanes) if et.lanes > 1 else (count,)
    shown: tuple[int, ...] = (count * et.lanes,)
    image = None
    if decl.is_image:
        keys = ("width", "height", "depth")
        size = tuple(
            _value(e, names, decl.name, key) for e, key in zip(decl.image_size, keys, strict=False)
        )
        bad = [f"{key} {v}" for v, key in zip(size, keys, strict=False) if v < 1]
        if bad:
            raise DeclarationError(f"parameter {decl.name!r}: an image of {bad[0]} is empty")
        image = ImageFormat(decl.image, decl.channels, size)
        shape = shown = image.array_shape
    elif decl.shape:
        rows, cols = (_value(s, names, decl.name, "shape") for s in decl.shape)
        if rows * cols != count * et.lanes:
            raise DeclarationError(
                f"parameter {decl.name!r}: key 'shape': {rows}×{cols} is not its "
                f"{count * et.lanes} elements"
            )
        shown = (rows, cols)
    param = BufferParam(
        decl.name,
        et,
        count,
        shape,
        _contents(decl, text),
        decl.access,  # type: ignore[arg-type]
        result=result,
        check=check,
        shown=shown,
        null=decl.null,
        writes=decl.writes,
        image=image,
    )
    promise = param.promise
    if promise is not None:
        try:
            checked_region(promise.region, promise.shape)  # the mask: where coverage needs it
        except RegionError as exc:
            raise DeclarationError(f"parameter {decl.name!r}: key 'writes': {exc}") from None
    return param
