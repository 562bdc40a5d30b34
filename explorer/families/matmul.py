"""C = A·B with A of M×K and B of K×N."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from explorer.families.base import InputError, Problem, Reference, grey_picture, random_matrix


class Matmul(Problem):
    family = "matmul"
    roles = ("M", "N", "K", "A", "B", "C")
    required_roles = ("A", "B", "C")
    size_names = ("M", "N", "K")
    default_sizes: ClassVar[dict[str, int]] = {"M": 256, "N": 256, "K": 256}
    input_presets = ("iou", "random", "identity", "image")
    output_role = "C"
    matrix_roles = ("A", "B", "C")
    ladder = ("naive", "tiled", "wpt", "reg2d")
    description = "Matrix multiply C = A·B (A: M×K, B: K×N)."

    def make_inputs(self, sizes, dtype, preset, text="IOU", image_path=None, seed=1234):
        m, n, k = sizes["M"], sizes["N"], sizes["K"]
        rng = np.random.default_rng(seed)
        integer = np.dtype(dtype).kind == "i"
        if preset in ("iou", "image"):
            # Seed 003: A = 1.5·I, B = 0.5 with the text drawn in 0, so C shows the text.
            picture = grey_picture(k, n, preset, text, image_path)
            a = np.eye(m, k) * (2 if integer else 1.5)
            b = picture * (1 if integer else 0.5)
            if integer:
                b = np.rint(b)
        elif preset == "identity":
            a = np.eye(m, k)
            b = random_matrix(rng, (k, n), dtype)
        elif preset == "random":
            a = random_matrix(rng, (m, k), dtype)
            b = random_matrix(rng, (k, n), dtype)
        else:
            raise InputError(f"matmul inputs are {', '.join(self.input_presets)}; not {preset!r}")
        return {"A": a.astype(dtype), "B": b.astype(dtype)}

    def reference(self, inputs, sizes):
        a = inputs["A"].astype(np.float64)
        b = inputs["B"].astype(np.float64)
        return Reference(a @ b, np.abs(a) @ np.abs(b), sizes["K"])

    def numpy_baseline(self, inputs):
        return inputs["A"] @ inputs["B"]

    def shapes(self, sizes):
        m, n, k = sizes["M"], sizes["N"], sizes["K"]
        return {"A": (m, k), "B": (k, n), "C": (m, n)}

    def output_shape(self, sizes):
        return (sizes["M"], sizes["N"])

    def flops(self, sizes):
        return 2.0 * sizes["M"] * sizes["N"] * sizes["K"]

    def min_bytes(self, sizes, itemsize):
        m, n, k = sizes["M"], sizes["N"], sizes["K"]
        return float(itemsize * (m * k + k * n + m * n))
