"""The one launch description every kernel becomes before the engine sees it.

A family variant at some sizes, a kernel whose header declares its parameters, an Oclgrind
``.sim`` file: each is turned into a :class:`LaunchDescription` (its buffers with element type,
shape, layout, initial contents, access and whether they are results; its ``__local`` sizes;
its scalars; its NDRange; and per result how it is judged). The engine plans, binds, launches,
judges and traces from this description alone, so guards around every buffer, memory checks,
tolerances, coverage and the shapes the window draws hold for every kernel alike.

Contents are recipes, made only once the engine has checked that they fit in memory
(:mod:`explorer.description.contents` makes them).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np

from explorer.description.elements import ElementType
from explorer.description.regions import NOTHING, region_mask

Arrays = dict[str, np.ndarray]
Access = Literal["read", "write", "readwrite"]


class DescriptionError(ValueError):
    """A kernel that cannot be described at these sizes; the message names the parameter."""


# -- initial contents ------------------------------------------------------------------------


@dataclass(frozen=True)
class Fill:
    """Every element one value (zeros, ones, a constant)."""

    value: float


@dataclass(frozen=True)
class Sentinel:
    """NaN for floats, the most negative integer otherwise: an element the kernel never wrote
    shows as such in the result."""


@dataclass(frozen=True)
class Iota:
    """``start``, ``start + step``, ... over every scalar lane."""

    start: float = 0.0
    step: float = 1.0


@dataclass(frozen=True)
class Random:
    """Uniform values from a seeded generator: [-1, 1) for floats and [0, 100) for integers
    unless a range is given."""

    seed: int
    low: float | None = None
    high: float | None = None


@dataclass(frozen=True)
class Picture:
    """Text drawn in black on white (``text``), or a grey image file, at the buffer's shape;
    integers scale it to 0..255."""

    text: str = "IOU"
    file: str = ""


@dataclass(frozen=True)
class NpyFile:
    """The values of a ``.npy`` file, as many as the buffer holds."""

    file: str


@dataclass(frozen=True)
class Values:
    """Given values: an array (a captured launch's buffer) or a list (a ``.sim`` file's)."""

    values: np.ndarray | tuple[float, ...]


@dataclass(frozen=True)
class Made:
    """Contents a function makes for several buffers at once (a family's inputs): ``make``
    returns them by buffer name. ``key`` tells what they are made from, so the same contents
    are not made twice for a repeated run."""

    make: Callable[[], Mapping[str, np.ndarray]]
    key: tuple[object, ...] = ()


@dataclass(frozen=True)
class NoInit:
    """The host leaves the buffer as the device allocated it: never uploaded, and a read
    before a write is uninitialised."""


Contents = Fill | Sentinel | Iota | Random | Picture | NpyFile | Values | Made | NoInit


# -- how a result is judged ------------------------------------------------------------------


@dataclass(frozen=True)
class Reference:
    """The exact answer, and the size of the terms that were summed to get it.

    ``magnitude`` (Σ|terms| per output element) and ``terms`` (how many were summed)
    scale the tolerance: a correct float32 kernel may differ from the float64 answer by
    about ``terms · eps · magnitude``; a wrong index differs by the size of a term.
    """

    value: np.ndarray
    magnitude: np.ndarray
    terms: int


@dataclass(frozen=True)
class Expected:
    """An answer given as an array (a captured launch's output), with its tolerance terms.
    ``source`` names where the array comes from ("the original run"), for the verdict to say
    what a match means."""

    value: np.ndarray
    terms: int = 1
    source: str = ""


@dataclass(frozen=True)
class Computed:
    """An answer a function computes in float64 from the inputs by buffer name (a family's
    numpy reference)."""

    compute: Callable[[Mapping[str, np.ndarray]], Reference]


@dataclass(frozen=True)
class NumpyExpression:
    """An answer written as a numpy expression over the buffers, scalars and sizes."""

    expression: str
    terms: int = 1


@dataclass(frozen=True)
class ReferenceKernel:
    """The answer another kernel computes from the same inputs (a naive version)."""

    path: str
    kernel: str
    terms: int = 1


Check = Expected | Computed | NumpyExpression | ReferenceKernel


# -- what a launch promises to write ---------------------------------------------------------


@dataclass(frozen=True)
class Promise:
    """The elements of a buffer a launch promises to write: ``region`` "all" or a numpy-style
    subscript over ``shape`` (the buffer as a person sees it, rows first, in elements of
    ``lane_bytes`` bytes; a ``column_major`` buffer is stored column by column). An element of
    the region no work-item wrote is a coverage finding; one outside it is simply what the
    buffer held before the launch."""

    region: str
    shape: tuple[int, ...]
    lane_bytes: int
    column_major: bool = False

    def mask(self) -> np.ndarray:
        """True for each promised element, rows first."""
        return region_mask(self.region, self.shape)

    def device_bytes(self) -> np.ndarray:
        """True for each promised byte, in the order the device stores the buffer."""
        mask = self.mask()
        if self.column_major and mask.ndim == 2:
            mask = mask.T
        return np.repeat(mask.ravel(), self.lane_bytes)


# -- parameters ------------------------------------------------------------------------------

# OpenCL's image channel types by the name a header gives them, with the element type each
# channel holds on the host (a normalised type reads as a float in [0, 1] or [-1, 1] in the
# kernel; the host holds its integers).
CHANNEL_TYPES: dict[str, str] = {
    "float": "float",
    "unorm_int8": "uchar",
    "unorm_int16": "ushort",
    "snorm_int8": "char",
    "snorm_int16": "short",
    "unsigned_int8": "uchar",
    "unsigned_int16": "ushort",
    "unsigned_int32": "uint",
    "signed_int8": "char",
    "signed_int16": "short",
    "signed_int32": "int",
}
# The channel orders a header may give, with their number of channels.
CHANNEL_ORDERS: dict[str, int] = {"R": 1, "RG": 2, "RGBA": 4, "BGRA": 4}


@dataclass(frozen=True)
class ImageFormat:
    """What makes a buffer an OpenCL image: its channel type and order (as OpenCL names
    them, ``"float"``/``"RGBA"``) and its size in pixels, ``(width, height[, depth])``."""

    channel_type: str
    channels: str
    size: tuple[int, ...]

    @property
    def dims(self) -> int:
        return len(self.size)

    @property
    def channel_count(self) -> int:
        return CHANNEL_ORDERS[self.channels]

    @property
    def pixels(self) -> tuple[int, ...]:
        """The image's pixels as numpy indexes them: (height, width) or (depth, height,
        width)."""
        return tuple(reversed(self.size))

    @property
    def array_shape(self) -> tuple[int, ...]:
        """How the host holds it and a reference sees it: (H, W[, channels]), or
        (D, H, W[, channels]) for a 3-D image."""
        count = self.channel_count
        return self.pixels + ((count,) if count > 1 else ())

    @property
    def kind(self) -> str:
        """The OpenCL C type that takes it: ``image2d_t`` or ``image3d_t``."""
        return f"image{self.dims}d_t"

    @property
    def words(self) -> str:
        """The format in words: "RGBA float 64×48"."""
        return f"{self.channels} {self.channel_type} {'×'.join(map(str, self.size))}"


@dataclass(frozen=True)
class SamplerParam:
    """A ``sampler_t`` argument: whether its coordinates are normalised, what a coordinate
    outside the image reads (``address``: none, clamp_to_edge, clamp, repeat,
    mirrored_repeat) and how pixels are sampled (``filter``: nearest or linear)."""

    name: str
    normalized: bool = False
    address: str = "clamp_to_edge"
    filter: str = "nearest"

    @property
    def words(self) -> str:
        coords = "normalised" if self.normalized else "pixel"
        return f"{coords} coordinates, address {self.address}, filter {self.filter}"


SAMPLER_ADDRESSES = ("none", "clamp_to_edge", "clamp", "repeat", "mirrored_repeat")
SAMPLER_FILTERS = ("nearest", "linear")


@dataclass(frozen=True)
class BufferParam:
    """A ``__global`` (or ``__constant``) pointer argument.

    ``shape`` is the host array as made (rows first; ``(count, lanes)`` for a vector type
    declared without a shape); ``shown`` is how a person sees it and how it is judged. A
    ``column_major`` matrix is stored on the device column by column. ``check`` is how a
    result is judged (None: it is shown, not checked). ``writes`` is what the launch promises
    to write of it: "all" (a family's output), a region such as ``"[1:-1, 1:-1]"`` over
    ``shown``, or nothing ("" or "none": the elements it leaves are its initial contents).
    """

    name: str
    element: ElementType
    count: int  # elements of ``element``
    shape: tuple[int, ...]
    contents: Contents
    access: Access = "readwrite"
    result: bool = False
    check: Check | None = None
    shown: tuple[int, ...] = ()
    column_major: bool = False
    null: bool = False  # passed as a NULL pointer
    writes: str = ""
    # An image (``image2d_t``, ``image3d_t``) rather than a pointer: its format and size.
    # ``element`` is then one pixel (``float4`` for RGBA float), ``shape`` and ``shown``
    # the image's ``array_shape``.
    image: ImageFormat | None = None

    @property
    def nbytes(self) -> int:
        return 0 if self.null else self.count * self.element.nbytes

    @property
    def shown_shape(self) -> tuple[int, ...]:
        return self.shown or self.shape

    @property
    def device_shape(self) -> tuple[int, ...]:
        """The host array's shape in the device's order."""
        return self.shape[::-1] if self.column_major else self.shape

    @property
    def is_input(self) -> bool:
        """Given to the kernel to read, with contents the host chose."""
        return self.access == "read" and not isinstance(self.contents, NoInit)

    @property
    def host_filled(self) -> bool:
        """The host wrote meaningful contents before the launch (not a sentinel, not
        uninitialised): a read before the kernel writes is no bug."""
        return not isinstance(self.contents, (NoInit, Sentinel))

    @property
    def promise(self) -> Promise | None:
        """What the launch promises to write of this buffer, if anything."""
        if self.writes in ("", NOTHING) or self.null:
            return None
        if self.image is not None:  # a region of pixels, each of a whole element
            return Promise(self.writes, self.image.pixels, self.element.nbytes)
        lane_bytes = self.element.nbytes // max(1, self.element.lanes)
        return Promise(self.writes, self.shown_shape, lane_bytes, self.column_major)

    @property
    def rewritten_by_kernel(self) -> bool:
        """A result whose contents before a launch do not matter (only written): a second
        launch over the first one's output must give the same answer."""
        return self.access == "write" and isinstance(self.contents, Sentinel)


@dataclass(frozen=True)
class LocalParam:
    """A ``__local`` pointer argument the host sizes."""

    name: str
    nbytes: int


@dataclass(frozen=True)
class ScalarParam:
    """An argument passed by value. ``type`` None: the kernel's own parameter type (a family
    size passed to a kernel that takes it as ``uint``); ``value`` a number, or per-lane
    values (a vector, a struct's bytes)."""

    name: str
    value: float | tuple[float, ...]
    type: str | None = None


Param = BufferParam | LocalParam | ScalarParam | SamplerParam


@dataclass(frozen=True)
class Setting:
    """The choices one launch is described at: the sizes, defines and work-group shape, and
    the input the person chose (``input``, ``text``, ``image_path``)."""

    sizes: dict[str, int]
    defines: dict[str, int]
    local_size: tuple[int, ...]
    compute_units: int = 1
    input: str = "random"
    text: str = "IOU"
    image_path: str | None = None

    @property
    def names(self) -> dict[str, int]:
        """The names a header's expressions see: sizes, defines, COMPUTE_UNITS, L0-L2."""
        names = {**self.sizes, **self.defines, "COMPUTE_UNITS": self.compute_units}
        names.update({f"L{i}": v for i, v in enumerate(self.local_size)})
        return names


@dataclass(frozen=True)
class LaunchDescription:
    """Every argument of one launch, in the kernel's parameter order (or by name), and the
    figures a run is rated by.

    ``by_name``: the parameters are matched to the kernel's by name (a header that declares
    each one), not by position (a family's roles in the header's ``args`` order).
    """

    params: tuple[Param, ...]
    by_name: bool = False
    flops: float = 0.0
    min_bytes: float = 0.0  # what the problem must move at least (0: its buffers' bytes)

    @property
    def buffers(self) -> tuple[BufferParam, ...]:
        return tuple(p for p in self.params if isinstance(p, BufferParam))

    @property
    def results(self) -> tuple[BufferParam, ...]:
        return tuple(b for b in self.buffers if b.result)

    @property
    def images(self) -> tuple[BufferParam, ...]:
        return tuple(b for b in self.buffers if b.image is not None)

    @property
    def local_bytes(self) -> int:
        """Bytes of the ``__local`` pointer arguments."""
        return sum(p.nbytes for p in self.params if isinstance(p, LocalParam))

    @property
    def checked(self) -> bool:
        """Whether any result has an answer to be compared with."""
        return any(b.check is not None for b in self.results)

    @property
    def bytes_moved(self) -> float:
        """The bytes the problem must move at least: the family's figure, or every buffer
        once."""
        return self.min_bytes or float(sum(b.nbytes for b in self.buffers))

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(name)

    @property
    def shapes(self) -> dict[str, tuple[int, ...]]:
        """How each buffer is shown, by name (rows first); an image by its pixels, as its
        trace records them ((H, W), or (D, H, W) for a 3-D image)."""
        return {b.name: b.image.pixels if b.image else b.shown_shape for b in self.buffers}

    @property
    def column_major(self) -> tuple[str, ...]:
        """The buffers stored column by column."""
        return tuple(b.name for b in self.buffers if b.column_major)


def role_layout(layout: str, role: str) -> str:
    """The order one matrix is stored in, from a header's ``layout`` ("row-major",
    "column-major", or per matrix: ``"A:row-major,B:column-major,C:row-major"``)."""
    if ":" not in layout:
        return layout
    return dict(part.split(":", 1) for part in layout.split(",")).get(role, "row-major")
