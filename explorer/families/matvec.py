"""OUT = MAT·VEC with MAT of HEIGHT rows × WIDTH columns (seed 002)."""

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


class Matvec(Family):
    family = "matvec"
    order = 30
    description = "Matrix-vector product OUT = MAT·VEC (MAT: HEIGHT×WIDTH)."
    roles = ("WIDTH", "HEIGHT", "MAT", "VEC", "OUT", "SCRATCH")
    required_roles = ("MAT", "VEC", "OUT")
    output_role = "OUT"
    matrix_roles = ("MAT",)
    # NVIDIA's sample passes one float of local memory per work-item for partial sums.
    local_roles = ("SCRATCH",)
    size_names = ("WIDTH", "HEIGHT")
    default_sizes: ClassVar[dict[str, int]] = {"WIDTH": 1100, "HEIGHT": 4096}
    size_help: ClassVar[dict[str, str]] = {
        "WIDTH": "columns of MAT, length of VEC",
        "HEIGHT": "rows of MAT, length of OUT",
    }
    test_sizes = (
        {"WIDTH": 256, "HEIGHT": 256},
        {"WIDTH": 1, "HEIGHT": 1},
        {"WIDTH": 17, "HEIGHT": 17},
        {"WIDTH": 17, "HEIGHT": 5},
        {"WIDTH": 100, "HEIGHT": 100},
        {"WIDTH": 1100, "HEIGHT": 300},
    )
    input_presets = ("random",)
    ladder = (
        "nvidia-uncoalesced0",
        "nvidia-uncoalesced1",
        "nvidia-coalesced0",
        "nvidia-coalesced1",
        "nvidia-coalesced2",
        "nvidia-coalesced3",
        "fast",
    )
    launch_global = ("HEIGHT",)
    launch_local = ("64",)
    role_aliases: ClassVar[dict[str, tuple[str, ...]]] = {
        "MAT": ("m", "mat", "matrix", "a"),
        "VEC": ("v", "vec", "vector", "x"),
        "OUT": ("out", "output", "dst", "odata"),
        "WIDTH": ("width", "w", "cols", "m"),
        "HEIGHT": ("height", "h", "rows", "n"),
        "SCRATCH": ("scratch", "partial", "tmp"),
    }
    torch_what = "torch.mv, cuBLAS SGEMV"

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
            raise InputError(f"matvec inputs are random only; not {preset!r}")
        rng = np.random.default_rng(seed)
        h, w = sizes["HEIGHT"], sizes["WIDTH"]
        return {"MAT": random_matrix(rng, (h, w), dtype), "VEC": random_matrix(rng, (w,), dtype)}

    def reference(self, inputs: Arrays, sizes: Sizes) -> Reference:
        mat = inputs["MAT"].astype(np.float64)
        vec = inputs["VEC"].astype(np.float64)
        return Reference(mat @ vec, np.abs(mat) @ np.abs(vec), sizes["WIDTH"])

    def needed(
        self, needs: Needs, where: tuple[int, ...], inputs: Mapping[str, np.ndarray], sizes: Sizes
    ) -> None:
        """OUT[i] needs row i of MAT and all of VEC."""
        (i,) = where
        needs["MAT"][i, :] = True
        needs["VEC"][:] = True

    def numpy_baseline(self, inputs: Arrays) -> np.ndarray:
        return np.asarray(inputs["MAT"] @ inputs["VEC"])

    def torch_op(self, sizes: Sizes, rand: TorchRand) -> Callable[[], Any]:
        m, v = rand(sizes["HEIGHT"], sizes["WIDTH"]), rand(sizes["WIDTH"])
        return lambda: m.mv(v)  # torch.mv, without importing torch here

    def shapes(self, sizes: Sizes) -> dict[str, tuple[int, ...]]:
        w, h = sizes["WIDTH"], sizes["HEIGHT"]
        return {"MAT": (h, w), "VEC": (w,), "OUT": (h,)}

    def output_shape(self, sizes: Sizes) -> tuple[int, ...]:
        return (sizes["HEIGHT"],)

    def flops(self, sizes: Sizes) -> float:
        return 2.0 * sizes["WIDTH"] * sizes["HEIGHT"]

    def min_bytes(self, sizes: Sizes, itemsize: int) -> float:
        w, h = sizes["WIDTH"], sizes["HEIGHT"]
        return float(itemsize * (w * h + w + h))
