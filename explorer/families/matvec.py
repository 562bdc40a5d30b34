"""OUT = MAT·VEC with MAT of HEIGHT rows × WIDTH columns (seed 002)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from explorer.families.base import InputError, Problem, Reference, random_matrix


class Matvec(Problem):
    family = "matvec"
    roles = ("WIDTH", "HEIGHT", "MAT", "VEC", "OUT", "SCRATCH")
    required_roles = ("MAT", "VEC", "OUT")
    size_names = ("WIDTH", "HEIGHT")
    default_sizes: ClassVar[dict[str, int]] = {"WIDTH": 1100, "HEIGHT": 4096}
    input_presets = ("random",)
    output_role = "OUT"
    matrix_roles = ("MAT",)
    local_roles = ("SCRATCH",)
    ladder = (
        "nvidia-uncoalesced0",
        "nvidia-uncoalesced1",
        "nvidia-coalesced0",
        "nvidia-coalesced1",
        "nvidia-coalesced2",
        "nvidia-coalesced3",
        "fast",
    )
    description = "Matrix-vector product OUT = MAT·VEC (MAT: HEIGHT×WIDTH)."

    def make_inputs(self, sizes, dtype, preset, text="IOU", image_path=None, seed=1234):
        if preset != "random":
            raise InputError(f"matvec inputs are random only; not {preset!r}")
        rng = np.random.default_rng(seed)
        h, w = sizes["HEIGHT"], sizes["WIDTH"]
        return {"MAT": random_matrix(rng, (h, w), dtype), "VEC": random_matrix(rng, (w,), dtype)}

    def reference(self, inputs, sizes):
        mat = inputs["MAT"].astype(np.float64)
        vec = inputs["VEC"].astype(np.float64)
        return Reference(mat @ vec, np.abs(mat) @ np.abs(vec), sizes["WIDTH"])

    def numpy_baseline(self, inputs):
        return inputs["MAT"] @ inputs["VEC"]

    def shapes(self, sizes):
        w, h = sizes["WIDTH"], sizes["HEIGHT"]
        return {"MAT": (h, w), "VEC": (w,), "OUT": (h,)}

    def output_shape(self, sizes):
        return (sizes["HEIGHT"],)

    def flops(self, sizes):
        return 2.0 * sizes["WIDTH"] * sizes["HEIGHT"]

    def min_bytes(self, sizes, itemsize):
        w, h = sizes["WIDTH"], sizes["HEIGHT"]
        return float(itemsize * (w * h + w + h))
