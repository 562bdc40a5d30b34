"""C = A·B with A of M×K and B of K×N."""

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
    grey_picture,
    random_matrix,
)


class Matmul(Family):
    family = "matmul"
    order = 10
    description = "Matrix multiply C = A·B (A: M×K, B: K×N)."
    roles = ("M", "N", "K", "A", "B", "C")
    required_roles = ("A", "B", "C")
    output_role = "C"
    matrix_roles = ("A", "B", "C")
    size_names = ("M", "N", "K")
    default_sizes: ClassVar[dict[str, int]] = {"M": 256, "N": 256, "K": 256}
    size_help: ClassVar[dict[str, str]] = {
        "M": "rows of A and C",
        "N": "columns of B and C",
        "K": "columns of A, rows of B (the length of each dot product)",
    }
    test_sizes = (
        {"M": 64, "N": 64, "K": 64},
        {"M": 256, "N": 256, "K": 256},
        {"M": 64, "N": 48, "K": 80},
        {"M": 1, "N": 1, "K": 1},
        {"M": 17, "N": 17, "K": 17},
        {"M": 33, "N": 7, "K": 130},
    )
    input_presets = ("iou", "random", "identity", "image")
    hiding: ClassVar[dict[str, tuple[str, str]]] = {
        "iou": (
            "the IOU input",
            "A = 1.5·I is symmetric and diagonal, and B is one value but for the text",
        ),
        "image": ("the image input", "A = 1.5·I is symmetric and diagonal"),
        "identity": ("the identity input", "A = I is symmetric and diagonal"),
    }
    ladder = ("naive", "tiled", "wpt", "reg2d", "warp", "fast", "wave")
    launch_global = ("N", "M")
    launch_local = ("16", "16")
    role_aliases: ClassVar[dict[str, tuple[str, ...]]] = {
        "A": ("a", "mata", "lhs"),
        "B": ("b", "matb", "rhs"),
        "C": ("c", "out", "result", "res"),
    }
    torch_what = "torch.matmul, cuBLAS SGEMM, TF32 off"

    def make_inputs(
        self,
        sizes: Sizes,
        dtype: np.dtype,
        preset: str,
        text: str = "IOU",
        image_path: str | None = None,
        seed: int = RANDOM_SEED,
    ) -> Arrays:
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

    def reference(self, inputs: Arrays, sizes: Sizes) -> Reference:
        a = inputs["A"].astype(np.float64)
        b = inputs["B"].astype(np.float64)
        return Reference(a @ b, np.abs(a) @ np.abs(b), sizes["K"])

    def needed(
        self, needs: Needs, where: tuple[int, ...], inputs: Mapping[str, np.ndarray], sizes: Sizes
    ) -> None:
        """C[i, j] needs row i of A and column j of B."""
        i, j = where
        needs["A"][i, :] = True
        needs["B"][:, j] = True

    def numpy_baseline(self, inputs: Arrays) -> np.ndarray:
        return np.asarray(inputs["A"] @ inputs["B"])

    def torch_op(self, sizes: Sizes, rand: TorchRand) -> Callable[[], Any]:
        a, b = rand(sizes["M"], sizes["K"]), rand(sizes["K"], sizes["N"])
        return lambda: a @ b

    def shapes(self, sizes: Sizes) -> dict[str, tuple[int, ...]]:
        m, n, k = sizes["M"], sizes["N"], sizes["K"]
        return {"A": (m, k), "B": (k, n), "C": (m, n)}

    def output_shape(self, sizes: Sizes) -> tuple[int, ...]:
        return (sizes["M"], sizes["N"])

    def flops(self, sizes: Sizes) -> float:
        return 2.0 * sizes["M"] * sizes["N"] * sizes["K"]

    def min_bytes(self, sizes: Sizes, itemsize: int) -> float:
        m, n, k = sizes["M"], sizes["N"], sizes["K"]
        return float(itemsize * (m * k + k * n + m * n))
