"""What every family provides: roles, sizes and their command-line flags, inputs, a float64
reference, costs, launch defaults, local-memory arguments, the vendor-library baseline, the
open-kernel dialog's guesses and the sizes the tests run."""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from explorer.description.elements import of_dtype
from explorer.description.images import load_grey, resample
from explorer.description.launch import (
    BufferParam,
    Computed,
    LaunchDescription,
    LocalParam,
    Made,
    Param,
    Reference,
    ScalarParam,
    Sentinel,
    Setting,
    role_layout,
)
from explorer.description.reference_needs import Needs
from explorer.description.text_image import text_mask

_DTYPES = ("float32", "int32")
Sizes = dict[str, int]
Arrays = dict[str, np.ndarray]
# ``rand(*shape)``: a float32 tensor of uniform values in [-1, 1) on the torch device.
TorchRand = Callable[..., Any]


class InputError(ValueError):
    """A size or input preset that a family cannot make."""


# The seed of a family's random input (the ``random`` preset), and of the random probe every
# other input is checked against: a second launch on random data of the same shapes.
RANDOM_SEED = 1234
PROBE_SEED = 4321


@dataclass(frozen=True)
class ProbeDescription:
    """The same launch on random contents (a probe of the kernel beside the input shown),
    and what the shown input is and why it can hide a bug, in words a person reads:
    ``shown`` "the IOU input", ``hides`` "A = 1.5·I is symmetric and diagonal"."""

    description: LaunchDescription
    shown: str
    hides: str


class KernelModel(ABC):
    """What any kernel's configuration offers a person (its sizes, their flags and help,
    its inputs) and the one thing the engine asks of it: a :class:`LaunchDescription` for
    one setting. A fixed :class:`Family` and a kernel whose header declares its own
    parameters (``families/custom.py``) are both kernel models."""

    family: str
    # Where the family stands in menus and listings (smaller first).
    order: ClassVar[int] = 1000
    description: str = ""
    roles: tuple[str, ...] = ()
    required_roles: tuple[str, ...] = ()
    matrix_roles: tuple[str, ...] = ()

    size_names: tuple[str, ...] = ()
    default_sizes: ClassVar[dict[str, int]] = {}
    # What each size means, for ``--help`` and the app's tooltips.
    size_help: ClassVar[dict[str, str]] = {}
    # Sizes every variant is verified at: tile multiples and sizes that are not.
    test_sizes: tuple[Sizes, ...] = ()

    input_presets: tuple[str, ...] = ()
    ladder: tuple[str, ...] = ()

    # The NDRange a user's kernel starts from in the open-kernel dialog.
    launch_global: tuple[str, ...] = ()
    launch_local: tuple[str, ...] = ()
    # Parameter names (lower case) the open-kernel dialog maps to a role.
    role_aliases: ClassVar[dict[str, tuple[str, ...]]] = {}

    # What a CUDA user would call instead (``bench --baseline torch``); "" when none.
    torch_what: str = ""

    # -- sizes ---------------------------------------------------------------------------

    def size_flag(self, name: str) -> str:
        """The command-line option that sets one size, e.g. ``--width``."""
        return "--" + name.lower()

    def size_flags(self) -> dict[str, str]:
        """Every size's command-line option, in size order."""
        return {name: self.size_flag(name) for name in self.size_names}

    def size_description(self, name: str) -> str:
        return self.size_help.get(name, f"size {name}")

    def check_sizes(self, sizes: Mapping[str, int | None]) -> Sizes:
        """Complete ``sizes`` with defaults and reject unknown names and non-positive values."""
        given = {k: v for k, v in sizes.items() if v is not None}
        full = {**self.default_sizes, **given}
        unknown = set(full) - set(self.size_names)
        if unknown:
            raise InputError(
                f"{self.family} has no size {sorted(unknown)}; sizes: {self.size_names}"
            )
        bad = {k: v for k, v in full.items() if int(v) < 1}
        if bad:
            raise InputError(f"sizes must be at least 1: {bad}")
        return {k: int(full[k]) for k in self.size_names}

    # Whether each kernel file names its own sizes (its header's), not the family's.
    own_sizes: ClassVar[bool] = False
    # The header key that lists a kernel's own conditions on its sizes and local size.
    constraints_key: ClassVar[str] = "sizes"

    def read_declarations(self, meta: dict[str, Any], where: str, folder: Path) -> Any:
        """What a kernel file's header declares of its parameters beyond the family's roles
        (None for a family, whose roles say it all); ``where`` names the file in errors and
        ``folder`` holds the files the header names. Raises ValueError."""
        return None

    def for_header(self, declarations: Any) -> KernelModel:
        """The model of one kernel file of this family: the family itself, or, for a kernel
        that declares its own parameters, one made from its header's ``declarations``."""
        return self

    def header_args(self, meta: dict[str, Any], where: str) -> tuple[str, ...]:
        """The roles a header maps onto the kernel's parameters, in parameter order."""
        if "args" not in meta:
            raise ValueError(f"{where}: header lacks 'args'")
        if not isinstance(meta["args"], list):
            raise ValueError(f"{where}: 'args' must be a list")
        return tuple(str(a) for a in meta["args"])

    def header_dtype(self, meta: dict[str, Any], where: str) -> str:
        """The element type of the family's buffers, from the header's ``dtype``."""
        dtype = str(meta.get("dtype", "float32"))
        if dtype not in _DTYPES:
            raise ValueError(f"{where}: dtype must be one of {_DTYPES}")
        return dtype

    @abstractmethod
    def describe(
        self, setting: Setting, args: tuple[str, ...], layout: str, dtype: np.dtype
    ) -> LaunchDescription:
        """Every argument of one launch at ``setting``: ``args`` are the header's roles in
        parameter order, ``layout`` its matrix layout, ``dtype`` its element type."""

    def probe(
        self, setting: Setting, args: tuple[str, ...], layout: str, dtype: np.dtype, seed: int
    ) -> ProbeDescription | str:
        """The launch :meth:`describe` gives, on random contents drawn with ``seed`` where
        the input shown can hide a bug (a symmetric, blank or constant input); otherwise a
        sentence saying why no probe is needed or possible."""
        return "this kernel has no input a random probe may replace"

    def reference_needs(
        self,
        setting: Setting,
        inputs: Mapping[str, np.ndarray],
        output: str,
        where: tuple[int, ...],
    ) -> Needs | str:
        """Which input elements element ``where`` (rows first) of result ``output`` depends
        on by the reference: a mask over each input, rows first, as shown; or a sentence
        saying why that is not known. ``inputs`` are the run's inputs, as shown."""
        return "the kernel's reference does not say which inputs each element needs"


class Family(KernelModel):
    """One family: the roles a kernel's parameters play, the maths behind them, and every
    per-family choice the engine, the command line and the app make."""

    output_role: str
    # ``__local`` pointer roles; the launch passes LOCAL_WORDS_PER_ITEM 4-byte words per
    # work-item for each.
    local_roles: tuple[str, ...] = ()
    # Scalar roles that are not sizes, with their value (e.g. rowdot's FACTOR).
    constants: ClassVar[dict[str, float]] = {}
    LOCAL_WORDS_PER_ITEM: ClassVar[int] = 1
    # How the output starts: the sentinel (NaN, or INT_MIN), so an element never written
    # shows; a family whose kernels accumulate into it (a histogram) starts from zeros.
    output_contents: ClassVar[Any] = Sentinel()
    # "write": the kernels only write the output (a second launch must give the same);
    # "readwrite": they add to it (only the first launch, from the initial contents, counts).
    output_access: ClassVar[str] = "write"
    # What a launch promises to write of the output: every element ("all"), so an element no
    # work-item wrote is a coverage finding; a histogram promises nothing (an empty bin keeps
    # its zero).
    output_writes: ClassVar[str] = "all"

    # -- roles ---------------------------------------------------------------------------

    @property
    def scalar_roles(self) -> tuple[str, ...]:
        """Roles passed by value: the sizes and the constants."""
        return tuple(r for r in self.roles if r in self.size_names or r in self.constants)

    @property
    def buffer_roles(self) -> tuple[str, ...]:
        """Roles passed as ``__global`` pointers."""
        return tuple(
            r for r in self.roles if r not in self.scalar_roles and r not in self.local_roles
        )

    def local_bytes(self, role: str, sizes: Sizes, local_size: tuple[int, ...]) -> int:
        """Bytes of a ``__local`` role's argument: :attr:`LOCAL_WORDS_PER_ITEM` 4-byte words
        per work-item unless the family sizes it otherwise."""
        return 4 * self.LOCAL_WORDS_PER_ITEM * math.prod(local_size)

    def scalar(self, role: str, sizes: Sizes) -> float:
        """The value of a scalar role (a size, or a constant such as rowdot's FACTOR)."""
        if role in sizes:
            return sizes[role]
        if role in self.constants:
            return self.constants[role]
        raise InputError(f"{self.family} has no scalar role {role!r}")

    # -- the description -----------------------------------------------------------------

    # What each input preset but ``random`` is, and why it can hide a bug that random data
    # shows (what a verdict says where only the random probe found it).
    hiding: ClassVar[dict[str, tuple[str, str]]] = {}

    def describe(
        self, setting: Setting, args: tuple[str, ...], layout: str, dtype: np.dtype
    ) -> LaunchDescription:
        """The inputs made by :meth:`make_inputs` (once, when the engine makes them), the
        output starting from :attr:`output_contents` and judged by :meth:`reference`."""
        return self._described(setting, args, layout, dtype, RANDOM_SEED)

    def probe(
        self, setting: Setting, args: tuple[str, ...], layout: str, dtype: np.dtype, seed: int
    ) -> ProbeDescription | str:
        """The same launch on the family's ``random`` input drawn with ``seed``; none where
        the input shown is random already (a second draw of the same kind shows no more)."""
        if setting.input == "random":
            return "the input shown is random data already"
        shown, hides = self.hiding.get(
            setting.input, (f"the {setting.input} input", "it is not random data")
        )
        random = replace(setting, input="random", image_path=None)
        return ProbeDescription(self._described(random, args, layout, dtype, seed), shown, hides)

    def _described(
        self, setting: Setting, args: tuple[str, ...], layout: str, dtype: np.dtype, seed: int
    ) -> LaunchDescription:
        sizes, dtype = dict(setting.sizes), np.dtype(dtype)
        shapes = self.shapes(sizes)
        element = of_dtype(dtype)
        image = setting.image_path if setting.input == "image" else None
        inputs = Made(
            partial(self.make_inputs, sizes, dtype, setting.input, setting.text, image, seed),
            (self.family, tuple(sorted(sizes.items())), dtype.str, setting.input)
            + (setting.text, _file_key(image), seed),
        )
        params: list[Param] = []
        for role in args:
            if role in self.local_roles:
                params.append(LocalParam(role, self.local_bytes(role, sizes, setting.local_size)))
            elif role in self.scalar_roles:
                params.append(ScalarParam(role, self.scalar(role, sizes)))
            else:
                shape = shapes[role]
                column = (
                    role in self.matrix_roles
                    and len(shape) == 2
                    and role_layout(layout, role) == "column-major"
                )
                output = role == self.output_role
                params.append(
                    BufferParam(
                        role,
                        element,
                        math.prod(shape),
                        shape,
                        self.output_contents if output else inputs,
                        self.output_access if output else "read",  # type: ignore[arg-type]
                        result=output,
                        check=Computed(partial(_family_reference, self, sizes)) if output else None,
                        column_major=column,
                        writes=self.output_writes if output else "",
                    )
                )
        return LaunchDescription(
            tuple(params),
            flops=self.flops(sizes),
            min_bytes=self.min_bytes(sizes, dtype.itemsize),
        )

    # -- the maths -----------------------------------------------------------------------

    def reference_needs(
        self,
        setting: Setting,
        inputs: Mapping[str, np.ndarray],
        output: str,
        where: tuple[int, ...],
    ) -> Needs | str:
        """The family's own statement of each element's inputs (:meth:`needed`)."""
        sizes = self.check_sizes(setting.sizes)
        if output != self.output_role:
            return f"{output} is not the {self.family} family's result {self.output_role}"
        shapes = self.shapes(sizes)
        needs = {
            role: np.zeros(shapes[role], dtype=bool)
            for role in self.buffer_roles
            if role != self.output_role and role in shapes
        }
        self.needed(needs, where, inputs, sizes)
        return needs

    @abstractmethod
    def needed(
        self, needs: Needs, where: tuple[int, ...], inputs: Mapping[str, np.ndarray], sizes: Sizes
    ) -> None:
        """Mark in ``needs`` (a mask per input role, rows first) the inputs the output's
        element ``where`` depends on: matmul's row of A and column of B, …"""

    @abstractmethod
    def make_inputs(
        self,
        sizes: Sizes,
        dtype: np.dtype,
        preset: str,
        text: str = "IOU",
        image_path: str | None = None,
        seed: int = RANDOM_SEED,
    ) -> Arrays:
        """Input arrays by role, 2-D for matrices (row = first index), in ``dtype``."""

    @abstractmethod
    def reference(self, inputs: Arrays, sizes: Sizes) -> Reference:
        """The output in float64."""

    def output_shape(self, sizes: Sizes) -> tuple[int, ...]:
        """The output's shape, rows first."""
        return self.shapes(sizes)[self.output_role]

    @abstractmethod
    def shapes(self, sizes: Sizes) -> dict[str, tuple[int, ...]]:
        """The mathematical shape of every buffer role (rows first)."""

    @abstractmethod
    def flops(self, sizes: Sizes) -> float:
        """Arithmetic operations of one run (0 for a family that only moves data)."""

    @abstractmethod
    def min_bytes(self, sizes: Sizes, itemsize: int) -> float:
        """The bytes the problem must move at least: each input read once, output written once."""

    @abstractmethod
    def numpy_baseline(self, inputs: Arrays) -> np.ndarray:
        """The same computation in the input dtype with numpy (its BLAS for products):
        what a user would write instead of a kernel."""

    def torch_op(self, sizes: Sizes, rand: TorchRand) -> Callable[[], Any] | None:
        """The torch call a CUDA user would write instead, on inputs made with ``rand``;
        None when the family has none (see :attr:`torch_what`)."""
        return None


def grey_picture(
    rows: int, cols: int, preset: str, text: str, image_path: str | None
) -> np.ndarray:
    """A picture in [0, 1]: text in black on white, or a user's image."""
    if preset == "image":
        if not image_path:
            raise InputError("the 'image' input needs an image file")
        return resample(load_grey(image_path), rows, cols)
    return np.where(text_mask(text, rows, cols), 0.0, 1.0)


def random_matrix(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """Uniform in [-1, 1) for floats, 0..9 for integers."""
    if np.dtype(dtype).kind == "i":
        return rng.integers(0, 10, size=shape).astype(dtype)
    return rng.uniform(-1.0, 1.0, size=shape).astype(dtype)


def _family_reference(family: Family, sizes: Sizes, inputs: Mapping[str, np.ndarray]) -> Reference:
    return family.reference(dict(inputs), sizes)


def _file_key(path: str | None) -> tuple[object, ...]:
    """What identifies a file's contents cheaply: its path, size and time of change."""
    if not path:
        return ()
    try:
        stat = Path(path).stat()
    except OSError:
        return (path,)
    return (path, stat.st_size, stat.st_mtime_ns)
