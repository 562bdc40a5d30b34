"""The declarations of a kernel whose header declares every parameter itself (``family =
"custom"``, see ``docs/custom.md``): its ``[sizes]``, ``[args.*]`` and ``[reference]`` tables,
read with messages that name the file, the parameter and the key. An Oclgrind ``.sim`` file is
read into the same declarations. ``families/custom.py`` turns them into launch descriptions."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explorer.description.elements import ElementTypeError, element_type
from explorer.description.expressions import ExpressionError, names_in
from explorer.description.launch import (
    CHANNEL_ORDERS,
    CHANNEL_TYPES,
    SAMPLER_ADDRESSES,
    SAMPLER_FILTERS,
    DescriptionError,
)
from explorer.description.regions import ALL, NOTHING, RegionError, parse_region

CONTENTS = (
    "random", "zeros", "ones", "iota", "constant", "iou", "image", "npy", "data", "noinit",
)  # fmt: skip
ACCESS = ("read", "write", "readwrite")


class DeclarationError(DescriptionError):
    """A declaration that cannot be used; the message names the parameter and the key."""


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
    # What the kernel promises to write: "all", a region such as "[1:-1, 1:-1]" over its
    # shape, or "" (nothing: the elements it leaves keep their contents, no finding).
    writes: str = ""
    # An image argument (``image = "float"``): its channel type as OpenCL names it, its
    # channel order ("R", "RG", "RGBA") and its (width, height[, depth]), expressions.
    # ``type`` is then one pixel's element type and ``count`` the pixels.
    image: str = ""
    channels: str = ""
    image_size: tuple[str, ...] = ()

    @property
    def is_image(self) -> bool:
        return bool(self.image)


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


@dataclass(frozen=True)
class SamplerDecl:
    """A ``sampler_t`` argument: normalised coordinates or not, the addressing mode and the
    filter (``docs/custom.md``, Images)."""

    name: str
    address: str = "clamp_to_edge"
    normalized: bool = False
    filter: str = "nearest"


Declaration = BufferDecl | LocalDecl | ScalarDecl | SamplerDecl


@dataclass(frozen=True)
class CustomSpec:
    """Every parameter's declaration, the named sizes and how the results are checked."""

    sizes: tuple[tuple[str, int], ...]
    params: tuple[Declaration, ...]
    reference_numpy: tuple[tuple[str, str], ...] = ()  # (result, numpy expression)
    reference_kernel: str = ""  # another kernel file run on the same inputs
    reference_kernel_name: str = ""
    terms: str = "1"  # the reduction length behind each result, for the tolerance
    # (result, absolute path of a .npy file): the answer given as an array, e.g. what the
    # launch left in the program it was captured from; ``expected_from`` names that source.
    reference_expected: tuple[tuple[str, str], ...] = ()
    expected_from: str = ""

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
    def samplers(self) -> tuple[SamplerDecl, ...]:
        return tuple(p for p in self.params if isinstance(p, SamplerDecl))

    @property
    def results(self) -> tuple[BufferDecl, ...]:
        """The buffers shown and checked: those marked as results, else every written one."""
        marked = tuple(b for b in self.buffers if b.result)
        return marked or tuple(b for b in self.buffers if b.access != "read" and not b.null)

    @property
    def checked(self) -> bool:
        return bool(self.reference_numpy or self.reference_kernel or self.reference_expected)

    def declaration(self, name: str) -> Declaration:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)


LOCAL_NAMES = ("L0", "L1", "L2")
_BUFFER_KEYS = {
    "buffer", "count", "contents", "value", "step", "seed", "range", "file", "data",
    "access", "result", "shape", "null", "writes",
}  # fmt: skip
_LOCAL_KEYS = {"local", "count"}
_SCALAR_KEYS = {"scalar", "value"}
_IMAGE_KEYS = (_BUFFER_KEYS - {"buffer", "count", "shape", "null"}) | {
    "image", "channels", "width", "height", "depth",
}  # fmt: skip
_SAMPLER_KEYS = {"sampler", "normalized", "filter"}


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
    if not isinstance(args, dict):  # an empty [args] declares a kernel without parameters
        raise DeclarationError(
            f"{where}: a custom kernel declares its parameters as tables [args.NAME] "
            '(buffer = "float", count = "N", ...; local = "float", count = "L0"; '
            'scalar = "float", value = 2.0; image = "float", width = "W", height = "H"; '
            'sampler = "clamp_to_edge")'
        )
    known = set(sizes_table) | defines | {"COMPUTE_UNITS", *LOCAL_NAMES}
    params = tuple(_declaration(name, table, where, folder, known) for name, table in args.items())
    reference = meta.get("reference", {})
    if not isinstance(reference, dict):
        raise DeclarationError(f"{where}: [reference] must be a table (numpy = ..., kernel = ...)")
    unknown = set(reference) - {"numpy", "kernel", "name", "terms", "expected", "expected_from"}
    if unknown:
        raise DeclarationError(
            f"{where}: [reference] has unknown keys {sorted(unknown)}; "
            "keys: numpy, kernel, name, terms, expected, expected_from"
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
    expected = _expected_files(reference, results, where, folder)
    if sum(map(bool, (numpy_ref, kernel_file, expected))) > 1:
        raise DeclarationError(
            f"{where}: [reference] gives more than one of numpy, kernel and expected: choose one"
        )
    expected_from = reference.get("expected_from", "")
    if not isinstance(expected_from, str):
        raise DeclarationError(
            f'{where}: [reference] expected_from must be text, e.g. "the original run"'
        )
    terms = str(reference.get("terms", "1"))
    _check_names(terms, known, where, "[reference]", "terms")
    return CustomSpec(
        sizes=tuple((str(k), int(v)) for k, v in sizes_table.items()),
        params=params,
        reference_numpy=numpy_ref,
        reference_kernel=str((folder / kernel_file).resolve()) if kernel_file else "",
        reference_kernel_name=str(reference.get("name", "")),
        terms=terms,
        reference_expected=expected,
        expected_from=expected_from,
    )


def _expected_files(
    reference: dict[str, Any], results: list[str], where: str, folder: Path
) -> tuple[tuple[str, str], ...]:
    """``expected = {NAME = "file.npy", ...}``: each result's answer as an array in a .npy
    file beside the kernel (a captured launch's output), by absolute path."""
    given = reference.get("expected")
    if given is None:
        return ()
    if not isinstance(given, dict) or not given:
        raise DeclarationError(
            f'{where}: [reference] expected must be a table of result = "file.npy"'
        )
    found = []
    for result, name in given.items():
        if result not in results:
            raise DeclarationError(
                f"{where}: [reference] expected.{result}: not a result buffer "
                f"({', '.join(results) or 'none'})"
            )
        if not isinstance(name, str) or not name:
            raise DeclarationError(f"{where}: [reference] expected.{result} must be a file name")
        path = folder / name
        if not path.is_file():
            raise DeclarationError(f"{where}: [reference] expected.{result}: {path} does not exist")
        found.append((str(result), str(path.resolve())))
    return tuple(found)


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
    kinds = [k for k in ("buffer", "local", "scalar", "image", "sampler") if k in table]
    if len(kinds) != 1:
        raise DeclarationError(
            f"{where}: {param}: give exactly one of the keys 'buffer', 'local', 'scalar' "
            "(its element type), 'image' (its channel type) or 'sampler' (its addressing mode)"
        )
    kind = kinds[0]
    allowed = {
        "buffer": _BUFFER_KEYS,
        "local": _LOCAL_KEYS,
        "scalar": _SCALAR_KEYS,
        "image": _IMAGE_KEYS,
        "sampler": _SAMPLER_KEYS,
    }[kind]
    extra = set(table) - allowed
    if extra:
        raise DeclarationError(
            f"{where}: {param}: key {sorted(extra)[0]!r} does not apply to a {kind}; "
            f"its keys: {', '.join(sorted(allowed))}"
        )

    def fail(key: str, message: str) -> DeclarationError:
        return DeclarationError(f"{where}: {param}: key {key!r}: {message}")

    table = dict(table)  # an image adds its pixel type: the header's own table is kept

    def expression(key: str, default: str | None = None) -> str:
        value = table.get(key, default)
        if value is None:
            raise fail(key, 'missing (an expression over the sizes, e.g. "N")')
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise fail(key, "must be an integer or an expression")
        text = str(value)
        _check_names(text, known, where, param, key)
        return text

    if kind == "sampler":
        return _sampler(name, table, fail)
    image: tuple[str, str, tuple[str, ...]] | None = None
    if kind == "image":
        image = _image(table, fail, expression)
        table["buffer"] = _pixel_type(image[0], image[1])
        table.setdefault("access", "read")
        kind = "buffer"
    type_name = table[kind]
    if not isinstance(type_name, str):
        raise fail(kind, 'must be an element type such as "float" or "uint4"')
    try:
        element_type(type_name)
    except ElementTypeError as exc:
        raise fail(kind, str(exc)) from None

    if kind == "local":
        return LocalDecl(name, type_name, expression("count"))
    if kind == "scalar":
        value = table.get("value")
        if value is None:
            raise fail("value", "missing (a number or an expression over the sizes)")
        values = value if isinstance(value, list) else [value]
        if not values:
            raise fail("value", "an empty list: give a number, an expression, or a list of them")
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
    # Numbers written out: the header's sizes and defines are not known when the contents
    # are made (count, shape and a scalar's value take expressions; these do not).
    step = table.get("step", 1.0)
    if isinstance(step, bool) or not isinstance(step, (int, float)) or not math.isfinite(step):
        raise fail(
            "step",
            f"{step!r}: iota's step must be a finite number written out (e.g. step = 4); "
            "names and expressions are taken by count, shape and a scalar's value, not here",
        )
    null = table.get("null", False)
    if not isinstance(null, bool):
        raise fail("null", f"{null!r}: must be true (pass a null pointer) or false")
    access = table.get("access", "readwrite")
    if access not in ACCESS:
        raise fail("access", f"must be one of {', '.join(ACCESS)}")
    file_name = table.get("file", "")
    if not isinstance(file_name, str):
        raise fail("file", f"{file_name!r}: must be a file name in quotes")
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
        if not (math.isfinite(low) and math.isfinite(high) and math.isfinite(high - low)):
            raise fail("range", "must be two finite numbers less than 1e308 apart, e.g. [0, 100]")
    seed = table.get("seed")
    if seed is not None and (
        isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63
    ):
        raise fail("seed", "must be an integer from 0 to 2^63 - 1")
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
    if image is not None and result and access == "read":
        raise fail(
            "result",
            "a result image is written: give it access = 'write' (a write_only image) "
            "or 'readwrite'",
        )
    if result and access == "read":
        raise fail("result", "a result buffer is written: its access cannot be 'read'")
    dims = len(image[2]) if image is not None else len(shape) or 1
    writes = _writes(table.get("writes", ""), access, dims, fail)
    count = "*".join(f"({e})" for e in image[2]) if image is not None else expression("count")
    return BufferDecl(
        name=name,
        type=type_name,
        count=count,
        contents=contents,
        value=float(value),
        step=float(step),
        seed=seed,
        low=low,
        high=high,
        file=str((folder / file_name).resolve()) if file_name else "",
        data=tuple(float(d) for d in data),
        access=access,
        result=result,
        shape=tuple(shape),
        null=null,
        writes=writes,
        image=image[0] if image is not None else "",
        channels=image[1] if image is not None else "",
        image_size=image[2] if image is not None else (),
    )


def _image(table: dict[str, Any], fail: Any, expression: Any) -> tuple[str, str, tuple[str, ...]]:
    """An image's channel type, channel order and (width, height[, depth]) expressions."""
    given = table["image"]
    channel_type = given.lower().removeprefix("cl_") if isinstance(given, str) else ""
    if channel_type not in CHANNEL_TYPES:
        raise fail("image", f"must be a channel type: {', '.join(CHANNEL_TYPES)}")
    order = table.get("channels", "R")
    channels = order.upper().removeprefix("CL_") if isinstance(order, str) else ""
    if channels not in CHANNEL_ORDERS:
        raise fail("channels", f"must be a channel order: {', '.join(CHANNEL_ORDERS)}")
    for key in ("width", "height"):
        if key not in table:
            raise fail(key, "missing: an image gives its width and height (expressions)")
    size = tuple(expression(k) for k in ("width", "height", "depth") if k in table)
    return channel_type, channels, size


def _pixel_type(channel_type: str, channels: str) -> str:
    """The element type one pixel is on the host: ``float4`` for RGBA float."""
    count = CHANNEL_ORDERS[channels]
    return CHANNEL_TYPES[channel_type] + (str(count) if count > 1 else "")


def _sampler(name: str, table: dict[str, Any], fail: Any) -> SamplerDecl:
    address = table["sampler"]
    address = address.lower().removeprefix("clk_address_") if isinstance(address, str) else ""
    if address not in SAMPLER_ADDRESSES:
        raise fail("sampler", f"must be an addressing mode: {', '.join(SAMPLER_ADDRESSES)}")
    normalized = table.get("normalized", False)
    if not isinstance(normalized, bool):
        raise fail("normalized", "must be true (coordinates from 0 to 1) or false (pixels)")
    filtered = table.get("filter", "nearest")
    filtered = filtered.lower().removeprefix("clk_filter_") if isinstance(filtered, str) else ""
    if filtered not in SAMPLER_FILTERS:
        raise fail("filter", f"must be one of {', '.join(SAMPLER_FILTERS)}")
    return SamplerDecl(name, address, normalized, filtered)


def _writes(value: object, access: str, dims: int, fail: Any) -> str:
    """The ``writes`` key: "all", "none" or a subscript over the buffer's ``dims``-dimensional
    shape, checked here so a mistake names the file, the parameter and the key."""
    if value in ("", NOTHING):
        return ""
    if not isinstance(value, str):
        raise fail("writes", f'must be "{ALL}", "{NOTHING}" or a region such as "[1:-1, 1:-1]"')
    if access == "read":
        raise fail("writes", "a buffer declared access = 'read' is not written")
    try:
        parse_region(value, dims)
    except RegionError as exc:
        shape = "[rows, cols]" if dims == 2 else "one dimension (no 'shape')"
        raise fail("writes", f"{exc}; the region is a subscript of its shape, {shape}") from None
    return value.strip()
