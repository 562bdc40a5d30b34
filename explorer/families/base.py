"""What every problem family provides: roles, sizes, inputs, a float64 reference, costs."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from explorer.families.images import load_grey, resample
from explorer.families.text_image import text_mask


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


class Problem(ABC):
    """One family: the roles a kernel's parameters play, and the maths behind them."""

    family: str
    roles: tuple[str, ...]
    required_roles: tuple[str, ...]
    size_names: tuple[str, ...]
    default_sizes: ClassVar[dict[str, int]]
    input_presets: tuple[str, ...]
    output_role: str
    matrix_roles: tuple[str, ...] = ()
    local_roles: tuple[str, ...] = ()
    ladder: tuple[str, ...] = ()
    description: str = ""

    @abstractmethod
    def make_inputs(
        self,
        sizes: dict[str, int],
        dtype: np.dtype,
        preset: str,
        text: str = "IOU",
        image_path: str | None = None,
        seed: int = 1234,
    ) -> dict[str, np.ndarray]:
        """Input arrays by role, 2-D for matrices (row = first index), in ``dtype``."""

    @abstractmethod
    def reference(self, inputs: dict[str, np.ndarray], sizes: dict[str, int]) -> Reference:
        """The output in float64."""

    @abstractmethod
    def output_shape(self, sizes: dict[str, int]) -> tuple[int, ...]: ...

    @abstractmethod
    def shapes(self, sizes: dict[str, int]) -> dict[str, tuple[int, ...]]:
        """The mathematical shape of every buffer role (rows first)."""

    @abstractmethod
    def flops(self, sizes: dict[str, int]) -> float: ...

    @abstractmethod
    def min_bytes(self, sizes: dict[str, int], itemsize: int) -> float:
        """The bytes the problem must move at least: each input read once, output written once."""

    @abstractmethod
    def numpy_baseline(self, inputs: dict[str, np.ndarray]) -> np.ndarray:
        """The same computation in the input dtype with numpy (its BLAS for products):
        what a user would write instead of a kernel."""

    def scalar(self, role: str, sizes: dict[str, int], inputs: dict[str, np.ndarray]) -> float:
        """The value of a scalar role (a size, or a constant such as FACTOR)."""
        if role in sizes:
            return sizes[role]
        raise InputError(f"{self.family} has no scalar role {role!r}")

    def check_sizes(self, sizes: dict[str, int]) -> dict[str, int]:
        """Complete ``sizes`` with defaults and reject non-positive values."""
        full = {**self.default_sizes, **{k: v for k, v in sizes.items() if v is not None}}
        unknown = set(full) - set(self.size_names)
        if unknown:
            raise InputError(
                f"{self.family} has no size {sorted(unknown)}; sizes: {self.size_names}"
            )
        bad = {k: v for k, v in full.items() if int(v) < 1}
        if bad:
            raise InputError(f"sizes must be at least 1: {bad}")
        return {k: int(full[k]) for k in self.size_names}


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
    if np.dtype(dtype).kind == "i":
        return rng.integers(0, 10, size=shape).astype(dtype)
    return rng.uniform(-1.0, 1.0, size=shape).astype(dtype)
