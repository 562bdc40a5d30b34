"""A kernel that declares every parameter itself: buffers, ``__local`` sizes and scalars.

Most kernels people bring fit none of the fixed families (an extra scalar, five buffers,
``uint`` indices beside ``float`` data, a ``__local`` buffer the host sizes). Their header
says what each parameter is; this module holds those declarations and makes the buffers'
contents from them (numpy only). Binding them to OpenCL lives in the engine.

Counts, shapes and scalar values are expressions over the named sizes, the defines,
``L0``-``L2`` (the local size) and ``COMPUTE_UNITS``; the engine evaluates them and hands
the values here as ``names``.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np

from explorer.families.base import Arrays, Family, InputError, Reference, Sizes
from explorer.families.images import load_grey, resample
from explorer.families.text_image import text_mask

ELEMENT_TYPES: dict[str, np.dtype] = {
    "char": np.dtype(np.int8),
    "uchar": np.dtype(np.uint8),
    "short": np.dtype(np.int16),
    "ushort": np.dtype(np.uint16),
    "int": np.dtype(np.int32),
    "uint": np.dtype(np.uint32),
    "long": np.dtype(np.int64),
    "ulong": np.dtype(np.uint64),
    "float": np.dtype(np.float32),
    "double": np.dtype(np.float64),
}
VECTOR_WIDTHS = (1, 2, 3, 4, 8, 16)
CONTENTS = (
    "random", "zeros", "ones", "iota", "constant", "iou", "image", "npy", "data", "noinit",
)  # fmt: skip
ACCESS = ("read", "write", "readwrite")
_TYPE = re.compile(r"^(?P<base>[a-z]+?)(?P<width>2|3|4|8|16)?$")


class DeclarationError(ValueError):
    """A declaration that cannot be used; the message names the parameter and the key."""


@dataclass(frozen=True)
class ElementType:
    """An OpenCL C element type: a scalar (``uint``) or a vector of one (``float4``)."""

    name: str
    base: np.dtype
    width: int

    @property
    def lanes(self) -> int:
        """Scalars one element occupies in memory (a 3-vector is stored as a 4-vector)."""
        return 4 if self.width == 3 else self.width

    @property
    def nbytes(self) -> int:
        return self.base.itemsize * self.lanes


def element_type(name: str) -> ElementType:
    """``float4`` → float32 × 4; a DeclarationError names the types there are."""
    match = _TYPE.match(name.strip())
    if match is None or match["base"] not in ELEMENT_TYPES:
        raise DeclarationError(
            f"unknown element type {name!r}; one of {', '.join(ELEMENT_TYPES)}, optionally "
            "followed by a vector width 2, 3, 4, 8 or 16"
        )
    return ElementType(name.strip(), ELEMENT_TYPES[match["base"]], int(match["width"] or 1))


@dataclass(frozen=True)
class BufferDecl:
    """A ``__global`` (or ``__constant``) pointer: its type, length, contents and use."""

    name: str
    type: str
    count: str  # elements of ``type``, an expression
    contents: str = "random"
    value: float = 0.0  # the constant; iota's start
    step: float = 1.0  # iota's step
    seed: int | None = None  # random; None derives one from the name
    low: float | None = None  # random's range (defaults: [-1, 1) floats, [0, 100) integers)
    high: float | None = None
    file: str = ""  # image or .npy file, absolute
    data: tuple[float, ...] = ()  # explicit values (Oclgrind's inline data)
    access: str = "readwrite"
    result: bool = False
    shape: tuple[str, ...] = ()  # how to show it: rows, cols; () is a 1-D strip
    null: bool = False  # pass a NULL pointer (Oclgrind's ``null``)


@dataclass(frozen=True)
class LocalDecl:
    """A ``__local`` pointer the host sizes: its element count, an expression."""

    name: str
    type: str
    count: str


@dataclass(frozen=True)
class ScalarDecl:
    """A parameter passed by value; ``value`` is an expression, a number, or per-lane values."""

    name: str
    type: str
    value: tuple[str, ...]


Declaration = BufferDecl | LocalDecl | ScalarDecl


@dataclass(frozen=True)
class CustomSpec:
    """Every parameter's declaration, the named sizes and how the results are checked."""

    sizes: tuple[tuple[str, int], ...]
    params: tuple[Declaration, ...]
    reference_numpy: tuple[tuple[str, str], ...] = ()  # (result, numpy expression)
    reference_kernel: str = ""  # another kernel file run on the same inputs
    reference_kernel_name: str = ""
    terms: str = "1"  # the reduction length behind each result, for the tolerance
    # The NDRange is launched as given (an Oclgrind .sim): where the local size does not
    # divide it, the last work-group of a dimension is smaller (OpenCL 2.0 non-uniform groups).
    exact_range: bool = False

    @property
    def buffers(self) -> tuple[BufferDecl, ...]:
        return tuple(p for p in self.params if isinstance(p, BufferDecl))

    @property
    def locals(self) -> tuple[LocalDecl, ...]:
        return tuple(p for p in self.params if isinstance(p, LocalDecl))

    @property
    def scalars(self) -> tuple[ScalarDecl, ...]:
        return tuple(p for p in self.params if isinstance(p, ScalarDecl))

    @property
    def results(self) -> tuple[BufferDecl, ...]:
        """The buffers shown and checked: those marked as results, else every written one."""
        marked = tuple(b for b in self.buffers if b.result)
        return marked or tuple(b for b in self.buffers if b.access != "read" and not b.null)

    @property
    def checked(self) -> bool:
        return bool(self.reference_numpy or self.reference_kernel)

    def declaration(self, name: str) -> Declaration:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)


def _evaluate(expression: str, names: dict[str, int], what: str) -> int:
    # The engine's expression evaluator is above this layer; counts reach here evaluated
    # in ``names`` under the parameter's own name (see :func:`buffer_array`).
    if expression in names:
        return int(names[expression])
    try:
        return int(expression)
    except ValueError:
        raise DeclarationError(f"{what}: {expression!r} was not evaluated") from None


def _seed(decl: BufferDecl) -> int:
    return decl.seed if decl.seed is not None else zlib.crc32(decl.name.encode())


def buffer_array(
    decl: BufferDecl, count: int, shape: tuple[int, ...], text: str = "IOU"
) -> np.ndarray:
    """The initial contents of one buffer: ``count`` elements, (count, lanes) for vectors.

    ``shape`` is the evaluated display shape (rows, cols), used by the pictures.
    """
    et = element_type(decl.type)
    total = count * et.lanes
    dtype = et.base
    integer = dtype.kind in "iu"
    where = f"parameter {decl.name!r}"
    if decl.contents in ("zeros", "noinit"):  # noinit: the host's record, never uploaded
        flat = np.zeros(total, dtype=dtype)
    elif decl.contents == "ones":
        flat = np.ones(total, dtype=dtype)
    elif decl.contents == "constant":
        flat = np.full(total, decl.value).astype(dtype)
    elif decl.contents == "iota":
        flat = (decl.value + decl.step * np.arange(total, dtype=np.float64)).astype(dtype)
    elif decl.contents == "random":
        rng = np.random.default_rng(_seed(decl))
        if integer:
            info = np.iinfo(dtype)
            low = int(decl.low) if decl.low is not None else 0
            high = int(decl.high) if decl.high is not None else min(100, int(info.max) + 1)
            flat = rng.integers(low, high, size=total, dtype=np.int64).astype(dtype)
        else:
            low_f = decl.low if decl.low is not None else -1.0
            high_f = decl.high if decl.high is not None else 1.0
            flat = rng.uniform(low_f, high_f, size=total).astype(dtype)
    elif decl.contents in ("iou", "image"):
        rows, cols = shape if len(shape) == 2 else (1, total)
        if rows * cols != total:
            raise InputError(f"{where}: a picture of {rows}×{cols} does not fill {total} elements")
        if decl.contents == "iou":
            picture = np.where(text_mask(text, rows, cols), 0.0, 1.0)
        else:
            picture = resample(load_grey(decl.file), rows, cols)
        scale = 255.0 if integer else 1.0
        flat = np.rint(picture * scale).astype(dtype) if integer else picture.astype(dtype)
        flat = flat.ravel()
    elif decl.contents == "npy":
        try:
            loaded = np.load(Path(decl.file), allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise InputError(f"{where}: cannot read {decl.file}: {exc}") from None
        if loaded.size != total:
            raise InputError(
                f"{where}: {decl.file} holds {loaded.size} values; the buffer has {total}"
            )
        flat = loaded.ravel().astype(dtype)
    elif decl.contents == "data":
        if len(decl.data) != total:
            raise InputError(f"{where}: {len(decl.data)} values given for {total} elements")
        flat = np.array(decl.data, dtype=np.float64 if not integer else np.int64).astype(dtype)
    else:
        raise InputError(f"{where}: contents {decl.contents!r} is not one of {CONTENTS}")
    return flat.reshape(count, et.lanes) if et.lanes > 1 else flat


def shown(array: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """A buffer as the person sees it: its declared 2-D shape, or a 1-D strip."""
    if len(shape) == 2 and shape[0] * shape[1] == array.size:
        return array.reshape(shape)
    return array.reshape(-1)


class Custom(Family):
    """The family of kernels that declare their own parameters. The registry's instance
    has no declarations; :meth:`for_spec` gives one for a kernel's header."""

    family = "custom"
    order = 900
    description = "Your own kernel: every parameter declared in its header."
    roles: tuple[str, ...] = ()
    required_roles: tuple[str, ...] = ()
    output_role = ""
    size_names: tuple[str, ...] = ()
    default_sizes: ClassVar[dict[str, int]] = {}
    input_presets = ("declared",)
    launch_global = ("N",)
    launch_local = ("64",)

    def __init__(self, spec: CustomSpec | None = None) -> None:
        self.spec = spec
        if spec is not None:
            self.size_names = tuple(name for name, _ in spec.sizes)
            self.roles = tuple(p.name for p in spec.params)
            self.local_roles = tuple(p.name for p in spec.locals)
            results = spec.results
            self.output_role = results[0].name if results else ""

    def check_sizes(self, sizes: Mapping[str, int | None]) -> Sizes:
        """The kernel's own named sizes, completed with the header's values."""
        if self.spec is None:
            return super().check_sizes(sizes)
        given = {k: v for k, v in sizes.items() if v is not None}
        unknown = set(given) - set(self.size_names)
        if unknown:
            raise InputError(
                f"this kernel has no size {sorted(unknown)}; its sizes: {list(self.size_names)}"
            )
        full = {**dict(self.spec.sizes), **given}
        bad = {k: v for k, v in full.items() if int(v) < 1}
        if bad:
            raise InputError(f"sizes must be at least 1: {bad}")
        return {k: int(full[k]) for k in self.size_names}

    @classmethod
    def for_spec(cls, spec: CustomSpec) -> Custom:
        return cls(spec)

    @property
    def scalar_roles(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.spec.scalars) if self.spec else ()

    def make_inputs(
        self,
        sizes: Sizes,
        dtype: np.dtype,
        preset: str,
        text: str = "IOU",
        image_path: str | None = None,
        seed: int = 1234,
    ) -> Arrays:
        """Every buffer's initial contents, for counts that are the sizes themselves or
        numbers (the engine evaluates every other expression)."""
        if self.spec is None:
            return {}
        arrays = {}
        for decl in self.spec.buffers:
            count = _evaluate(decl.count, dict(sizes), f"count of {decl.name}")
            arrays[decl.name] = buffer_array(decl, count, (), text)
        return arrays

    def reference(self, inputs: Arrays, sizes: Sizes) -> Reference:
        raise InputError("a custom kernel's reference is computed by the engine")

    def output_shape(self, sizes: Sizes) -> tuple[int, ...]:
        return ()

    def shapes(self, sizes: Sizes) -> dict[str, tuple[int, ...]]:
        return {}

    def flops(self, sizes: Sizes) -> float:
        return 0.0

    def min_bytes(self, sizes: Sizes, itemsize: int) -> float:
        return 0.0

    def numpy_baseline(self, inputs: Arrays) -> np.ndarray:
        return np.zeros(0)
