"""RESULT[y] = FACTOR · Σ_k VECTOR[k]·MAT1[y,k]·MAT2[y,k], D×D matrices (seed 004)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import numpy as np

from explorer.description.reference_needs import Needs
from explorer.families.base import (
    RANDOM_SEED,
    Arrays,
    Family,
    InputError,
    Reference,
    Sizes,
    TorchRand,
    random_matrix,
)

FACTOR = 0.5


class Rowdot(Family):
    family = "rowdot"
    order = 40
    description = "Weighted row dot product RESULT[y] = FACTOR·Σₖ VECTOR[k]·MAT1[y,k]·MAT2[y,k]."
    roles = ("D", "RESULT", "VECTOR", "MAT1", "MAT2", "FACTOR")
    required_roles = ("RESULT", "VECTOR", "MAT1", "MAT2")
    output_role = "RESULT"
    matrix_roles = ("MAT1", "MAT2")
    constants: ClassVar[dict[str, float]] = {"FACTOR": FACTOR}
    size_names = ("D",)
    default_sizes: ClassVar[dict[str, int]] = {"D": 1000}
    size_help: ClassVar[dict[str, str]] = {"D": "rows and columns of MAT1 and MAT2"}
    test_sizes = ({"D": 256}, {"D": 1}, {"D": 17}, {"D": 100}, {"D": 257}, {"D": 1000})
    input_presets = ("random",)
    ladder = (
        "seed004-original",
        "seed004-local-vector",
        "seed004-group-row",
        "local-vector",
        "group-row",
        "fast",
    )
    launch_global = ("D",)
    launch_local = ("64",)
    role_aliases: ClassVar[dict[str, tuple[str, ...]]] = {
        "RESULT": ("result", "out", "res"),
        "VECTOR": ("vector", "vec", "v"),
        "MAT1": ("matrix", "mat1", "m1"),
        "MAT2": ("matrix2", "mat2", "m2"),
        "FACTOR": ("factor", "alpha", "scale"),
    }
    torch_what = f"torch {FACTOR} * ((m1 * m2) @ v)"

    def make_inputs(
        self,
        sizes: Sizes,
        dtype: np.dtype,
        preset: str,
        text: str = "IOU",
        image_path: str | None = None,
        seed: int = RANDOM_SEED,
    ) -> Arrays:
        if preset != "random":
            raise InputError(f"rowdot inputs are random only; not {preset!r}")
        rng = np.random.default_rng(seed)
        d = sizes["D"]
        return {
            "VECTOR": random_matrix(rng, (d,), dtype),
            "MAT1": random_matrix(rng, (d, d), dtype),
            "MAT2": random_matrix(rng, (d, d), dtype),
        }

    def reference(self, inputs: Arrays, sizes: Sizes) -> Reference:
        v = inputs["VECTOR"].astype(np.float64)
        m = inputs["MAT1"].astype(np.float64) * inputs["MAT2"].astype(np.float64)
        return Reference(FACTOR * (m @ v), FACTOR * (np.abs(m) @ np.abs(v)), 2 * sizes["D"])

    def needed(
        self, needs: Needs, where: tuple[int, ...], inputs: Mapping[str, np.ndarray], sizes: Sizes
    ) -> None:
        """RESULT[y] needs row y of MAT1 and of MAT2, and all of VECTOR."""
        (y,) = where
        needs["MAT1"][y, :] = True
        needs["MAT2"][y, :] = True
        needs["VECTOR"][:] = True

    def numpy_baseline(self, inputs: Arrays) -> np.ndarray:
        return np.asarray(
            FACTOR * np.einsum("yk,yk,k->y", inputs["MAT1"], inputs["MAT2"], inputs["VECTOR"])
        )

    def torch_op(self, sizes: Sizes, rand: TorchRand) -> Callable[[], Any]:
        d = sizes["D"]
        m1, m2, v = rand(d, d), rand(d, d), rand(d)
        return lambda: FACTOR * ((m1 * m2) @ v)

    def shapes(self, sizes: Sizes) -> dict[str, tuple[int, ...]]:
        d = sizes["D"]
        return {"VECTOR": (d,), "MAT1": (d, d), "MAT2": (d, d), "RESULT": (d,)}

    def output_shape(self, sizes: Sizes) -> tuple[int, ...]:
        return (sizes["D"],)

    def flops(self, sizes: Sizes) -> float:
        return 3.0 * sizes["D"] ** 2

    def min_bytes(self, sizes: Sizes, itemsize: int) -> float:
        d = sizes["D"]
        return float(itemsize * (2 * d * d + 2 * d))
