"""OUT = a 3×3 blur of IN (HEIGHT rows × WIDTH columns), clamped at the edges.

The weights are the binomial blur ``[1 2 1; 2 4 2; 1 2 1] / 16``. Outside the image a
pixel takes the value of the nearest edge pixel (clamp-to-edge), so every output is a
weighted mean of nine real pixels and a constant image stays constant.
"""

from __future__ import annotations

import importlib
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

WEIGHTS = np.array([[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]) / 16.0


def blur(image: np.ndarray) -> np.ndarray:
    """The 3×3 blur with clamp-to-edge borders, in the dtype of ``image``'s arithmetic."""
    padded = np.pad(image, 1, mode="edge")
    rows, cols = image.shape
    out = np.zeros(image.shape, dtype=np.result_type(image.dtype, np.float32))
    for dy in range(3):
        for dx in range(3):
            out = out + WEIGHTS[dy, dx].astype(out.dtype) * padded[dy : dy + rows, dx : dx + cols]
    return out


class Stencil(Family):
    family = "stencil"
    order = 50
    description = "3×3 blur OUT = [1 2 1; 2 4 2; 1 2 1]/16 ∗ IN, clamped at the edges."
    roles = ("WIDTH", "HEIGHT", "IN", "OUT")
    required_roles = ("IN", "OUT")
    output_role = "OUT"
    matrix_roles = ("IN", "OUT")
    size_names = ("WIDTH", "HEIGHT")
    default_sizes: ClassVar[dict[str, int]] = {"WIDTH": 768, "HEIGHT": 768}
    size_help: ClassVar[dict[str, str]] = {
        "WIDTH": "columns of IN and OUT",
        "HEIGHT": "rows of IN and OUT",
    }
    test_sizes = (
        {"WIDTH": 64, "HEIGHT": 64},
        {"WIDTH": 256, "HEIGHT": 128},
        {"WIDTH": 1, "HEIGHT": 1},
        {"WIDTH": 67, "HEIGHT": 45},
        {"WIDTH": 17, "HEIGHT": 5},
        {"WIDTH": 3, "HEIGHT": 100},
    )
    input_presets = ("iou", "random", "image")
    hiding: ClassVar[dict[str, tuple[str, str]]] = {
        "iou": (
            "the IOU input",
            "it is white but for the text: most pixels equal their neighbours",
        ),
        "image": ("the image input", "neighbouring pixels of an image are often equal"),
    }
    ladder = ("naive", "tiled", "fast")
    launch_global = ("WIDTH", "HEIGHT")
    launch_local = ("16", "16")
    role_aliases: ClassVar[dict[str, tuple[str, ...]]] = {
        "IN": ("in", "input", "src", "image", "img"),
        "OUT": ("out", "output", "dst", "result"),
        "WIDTH": ("width", "w", "cols", "nx"),
        "HEIGHT": ("height", "h", "rows", "ny"),
    }
    torch_what = "torch conv2d, 3×3 blur on a replicate-padded image"

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
        if np.dtype(dtype).kind != "f":
            raise InputError("the stencil's weights are fractions: its kernels are float32")
        if preset in ("iou", "image"):
            # Text in black on white: the blur softens every stroke's edge into grey.
            data = grey_picture(h, w, preset, text, image_path)
        elif preset == "random":
            data = random_matrix(np.random.default_rng(seed), (h, w), dtype)
        else:
            raise InputError(f"stencil inputs are {', '.join(self.input_presets)}; not {preset!r}")
        return {"IN": np.asarray(data).astype(dtype)}

    def reference(self, inputs: Arrays, sizes: Sizes) -> Reference:
        image = inputs["IN"].astype(np.float64)
        return Reference(blur(image), blur(np.abs(image)), 9)

    def needed(
        self, needs: Needs, where: tuple[int, ...], inputs: Mapping[str, np.ndarray], sizes: Sizes
    ) -> None:
        """OUT[y, x] needs the 3×3 neighbourhood of IN[y, x], clamped at the edges (a pixel
        by an edge needs the edge pixel, once)."""
        y, x = where
        rows, cols = needs["IN"].shape
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                needs["IN"][min(max(y + dy, 0), rows - 1), min(max(x + dx, 0), cols - 1)] = True

    def numpy_baseline(self, inputs: Arrays) -> np.ndarray:
        return blur(inputs["IN"])

    def torch_op(self, sizes: Sizes, rand: TorchRand) -> Callable[[], Any]:
        image = rand(1, 1, sizes["HEIGHT"], sizes["WIDTH"])
        weights = image.new_tensor(WEIGHTS).reshape(1, 1, 3, 3)
        functional = importlib.import_module("torch.nn.functional")  # torch is optional

        def op() -> Any:
            return functional.conv2d(functional.pad(image, (1, 1, 1, 1), mode="replicate"), weights)

        return op

    def shapes(self, sizes: Sizes) -> dict[str, tuple[int, ...]]:
        shape = (sizes["HEIGHT"], sizes["WIDTH"])
        return {"IN": shape, "OUT": shape}

    def output_shape(self, sizes: Sizes) -> tuple[int, ...]:
        return (sizes["HEIGHT"], sizes["WIDTH"])

    def flops(self, sizes: Sizes) -> float:
        return 17.0 * sizes["WIDTH"] * sizes["HEIGHT"]  # nine multiplies, eight adds

    def min_bytes(self, sizes: Sizes, itemsize: int) -> float:
        return float(2 * itemsize * sizes["WIDTH"] * sizes["HEIGHT"])
