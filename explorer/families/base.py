"""What every family provides: roles, sizes and their command-line flags, inputs, a float64
reference, costs, launch defaults, local-memory arguments, the vendor-library baseline, the
open-kernel dialog's guesses and the sizes the tests run."""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from explorer.families.images import load_grey, resample
from explorer.families.text_image import text_mask

Sizes = dict[str, int]
Arrays = dict[str, np.ndarray]
# ``rand(*shape)``: a float32 tensor of uniform values in [-1, 1) on the torch device.
TorchRand = Callable[..., Any]


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


class InputError(ValueError):
    """A size or input preset that a family cannot make."""


class Family(ABC):
    """One family: the roles a kernel's parameters play, the maths behind them, and every
    per-family choice the engine, the command line and the app make."""

    family: str
    # Where the family stands in menus and listings (smaller first).
    order: ClassVar[int] = 1000
    description: str = ""
    roles: tuple[str, ...]
    required_roles: tuple[str, ...]
    output_role: str
    matrix_roles: tuple[str, ...] = ()
    # ``__local`` pointer roles; the launch passes LOCAL_WORDS_PER_ITEM 4-byte words per
    # work-item for each (see :meth:`local_arg_bytes`).
    local_roles: tuple[str, ...] = ()
    # Scalar roles that are not sizes, with their value (e.g. rowdot's FACTOR).
    constants: ClassVar[dict[str, float]] = {}

    size_names: tuple[str, ...]
    default_sizes: ClassVar[dict[str, int]]
    # What each size means, for ``--help`` and the app's tooltips.
    size_help: ClassVar[dict[str, str]] = {}
    # Sizes every variant is verified at: tile multiples and sizes that are not.
    test_sizes: tuple[Sizes, ...] = ()

    input_presets: tuple[str, ...]
    ladder: tuple[str, ...] = ()

    # The NDRange a user's kernel starts from in the open-kernel dialog.
    launch_global: tuple[str, ...]
    launch_local: tuple[str, ...]
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

    def scalar(self, role: str, sizes: Sizes, inputs: Arrays) -> float:
        """The value of a scalar role (a size, or a constant such as rowdot's FACTOR)."""
        if role in sizes:
            return sizes[role]
        if role in self.constants:
            return self.constants[role]
        raise InputError(f"{self.family} has no scalar role {role!r}")

    LOCAL_WORDS_PER_ITEM: ClassVar[int] = 1

    def local_arg_bytes(self, args: tuple[str, ...], local_size: tuple[int, ...]) -> int:
        """Bytes of ``__local`` pointer arguments a launch with this local size passes."""
        per_role = 4 * self.LOCAL_WORDS_PER_ITEM * math.prod(local_size)
        return sum(per_role for role in args if role in self.local_roles)

    # -- the maths -----------------------------------------------------------------------

    @abstractmethod
    def make_inputs(
        self,
        sizes: Sizes,
        dtype: np.dtype,
        preset: str,
        text: str = "IOU",
        image_path: str | None = None,
        seed: int = 1234,
    ) -> Arrays:
        """Input arrays by role, 2-D for matrices (row = first index), in ``dtype``."""

    @abstractmethod
    def reference(self, inputs: Arrays, sizes: Sizes) -> Reference:
        """The output in float64."""

    @abstractmethod
    def output_shape(self, sizes: Sizes) -> tuple[int, ...]:
        """The output's shape, rows first."""

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


# The name the engine used before families owned every per-family choice.
Problem = Family


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
