"""RESULT[y] = FACTOR · Σ_k VECTOR[k]·MAT1[y,k]·MAT2[y,k], D×D matrices (seed 004)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from explorer.families.base import InputError, Problem, Reference, random_matrix

FACTOR = 0.5


class Rowdot(Problem):
    family = "rowdot"
    roles = ("D", "RESULT", "VECTOR", "MAT1", "MAT2", "FACTOR")
    required_roles = ("RESULT", "VECTOR", "MAT1", "MAT2")
    size_names = ("D",)
    default_sizes: ClassVar[dict[str, int]] = {"D": 1000}
    input_presets = ("random",)
    output_role = "RESULT"
    matrix_roles = ("MAT1", "MAT2")
    ladder = (
        "seed004-original",
        "seed004-local-vector",
        "seed004-group-row",
        "local-vector",
        "group-row",
        "fast",
    )
    description = "Weighted row dot product RESULT[y] = FACTOR·Σₖ VECTOR[k]·MAT1[y,k]·MAT2[y,k]."

    def make_inputs(self, sizes, dtype, preset, text="IOU", image_path=None, seed=1234):
        if preset != "random":
            raise InputError(f"rowdot inputs are random only; not {preset!r}")
        rng = np.random.default_rng(seed)
        d = sizes["D"]
        return {
            "VECTOR": random_matrix(rng, (d,), dtype),
            "MAT1": random_matrix(rng, (d, d), dtype),
            "MAT2": random_matrix(rng, (d, d), dtype),
        }

    def scalar(self, role, sizes, inputs):
        if role == "FACTOR":
            return FACTOR
        return super().scalar(role, sizes, inputs)

    def reference(self, inputs, sizes):
        v = inputs["VECTOR"].astype(np.float64)
        m = inputs["MAT1"].astype(np.float64) * inputs["MAT2"].astype(np.float64)
        return Reference(FACTOR * (m @ v), FACTOR * (np.abs(m) @ np.abs(v)), 2 * sizes["D"])

    def numpy_baseline(self, inputs):
        return FACTOR * np.einsum("yk,yk,k->y", inputs["MAT1"], inputs["MAT2"], inputs["VECTOR"])

    def shapes(self, sizes):
        d = sizes["D"]
        return {"VECTOR": (d,), "MAT1": (d, d), "MAT2": (d, d), "RESULT": (d,)}

    def output_shape(self, sizes):
        return (sizes["D"],)

    def flops(self, sizes):
        return 3.0 * sizes["D"] ** 2

    def min_bytes(self, sizes, itemsize):
        d = sizes["D"]
        return float(itemsize * (2 * d * d + 2 * d))
