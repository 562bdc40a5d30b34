"""OUT = INᵀ with IN of HEIGHT rows × WIDTH columns."""

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


class Transpose(Family):
    family = "transpose"
    order = 20
    description = "Matrix transpose OUT = INᵀ (IN: HEIGHT×WIDTH)."
    roles = ("WIDTH", "HEIGHT", "IN", "OUT")
    required_roles = ("IN", "OUT")
    output_role = "OUT"
    matrix_roles = ("IN", "OUT")
    size_names = ("WIDTH", "HEIGHT")
    default_sizes: ClassVar[dict[str, int]] = {"WIDTH": 1024, "HEIGHT": 1024}
    size_help: ClassVar[dict[str, str]] = {
        "WIDTH": "columns of IN (rows of OUT)",
        "HEIGHT": "rows of IN (columns of OUT)",
    }
    test_sizes = (
        {"WIDTH": 64, "HEIGHT": 64},
        {"WIDTH": 256, "HEIGHT": 256},
        {"WIDTH": 48, "HEIGHT": 256},  # whole 64-byte lines of OUT: cpu-blocked's fast path
        {"WIDTH": 1, "HEIGHT": 1},
        {"WIDTH": 17, "HEIGHT": 5},
        {"WIDTH": 100, "HEIGHT": 100},
        {"WIDTH": 3000, "HEIGHT": 1000},
    )
    input_presets = ("iou", "random", "image")
    hiding: ClassVar[dict[str, tuple[str, str]]] = {
        "iou": (
            "the IOU input",
            "its values lie between 0 and 1 and change little from one element to the next",
        ),
        "image": (
            "the image input",
            "its values lie between 0 and 1 and change little from one pixel to the next",
        ),
    }
    ladder = ("naive", "tiled", "tiled-padded", "padded-rows", "fast")
    launch_global = ("WIDTH", "HEIGHT")
    launch_local = ("16", "16")
    role_aliases: ClassVar[dict[str, tuple[str, ...]]] = {
        "IN": ("in", "input", "src", "idata"),
        "OUT": ("out", "output", "dst", "odata"),
        "WIDTH": ("width", "w", "cols", "m"),
        "HEIGHT": ("height", "h", "rows", "n"),
    }
    torch_what = "torch x.t().contiguous()"

    def make_inputs(
        self,
        sizes: Sizes,
        dtype: np.dtype,
        preset: str,
        text: str = "IOU",
        image_path: str | None = None,
        seed: int = RANDOM_SEED,
    ) -> Arrays:
        h, w = sizes["HEIGHT"], sizes["WIDTH"]
        if preset in ("iou", "image"):
            picture = grey_picture(h, w, preset, text, image_path)
            # A faint gradient under the text, so that every element differs.
            ramp = np.linspace(0.0, 0.25, h * w).reshape(h, w)
            data = picture * 0.75 + ramp
        elif preset == "random":
            data = random_matrix(np.random.default_rng(seed), (h, w), dtype)
        else:
            raise InputError(
                f"transpose inputs are {', '.join(self.input_presets)}; not {preset!r}"
            )
        return {"IN": np.asarray(data).astype(dtype)}

    def reference(self, inputs: Arrays, sizes: Sizes) -> Reference:
        value = inputs["IN"].astype(np.float64).T
        return Reference(value, np.abs(value), 0)

    def needed(
        self, needs: Needs, where: tuple[int, ...], inputs: Mapping[str, np.ndarray], sizes: Sizes
    ) -> None:
        """OUT[i, j] needs IN[j, i]."""
        i, j = where
        needs["IN"][j, i] = True

    def numpy_baseline(self, inputs: Arrays) -> np.ndarray:
        return np.ascontiguousarray(inputs["IN"].T)

    def torch_op(self, sizes: Sizes, rand: TorchRand) -> Callable[[], Any]:
        x = rand(sizes["HEIGHT"], sizes["WIDTH"])
        return lambda: x.t().contiguous()

    def shapes(self, sizes: Sizes) -> dict[str, tuple[int, ...]]:
        return {"IN": (sizes["HEIGHT"], sizes["WIDTH"]), "OUT": (sizes["WIDTH"], sizes["HEIGHT"])}

    def output_shape(self, sizes: Sizes) -> tuple[int, ...]:
        return (sizes["WIDTH"], sizes["HEIGHT"])

    def flops(self, sizes: Sizes) -> float:
        return 0.0

    def min_bytes(self, sizes: Sizes, itemsize: int) -> float:
        return float(2 * itemsize * sizes["WIDTH"] * sizes["HEIGHT"])
