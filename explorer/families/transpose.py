"""OUT = INᵀ with IN of HEIGHT rows × WIDTH columns."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from explorer.families.base import InputError, Problem, Reference, grey_picture, random_matrix


class Transpose(Problem):
    family = "transpose"
    roles = ("WIDTH", "HEIGHT", "IN", "OUT")
    required_roles = ("IN", "OUT")
    size_names = ("WIDTH", "HEIGHT")
    default_sizes: ClassVar[dict[str, int]] = {"WIDTH": 1024, "HEIGHT": 1024}
    input_presets = ("iou", "random", "image")
    output_role = "OUT"
    matrix_roles = ("IN", "OUT")
    ladder = ("naive", "tiled", "tiled-padded", "fast")
    description = "Matrix transpose OUT = INᵀ (IN: HEIGHT×WIDTH)."

    def make_inputs(self, sizes, dtype, preset, text="IOU", image_path=None, seed=1234):
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

    def reference(self, inputs, sizes):
        value = inputs["IN"].astype(np.float64).T
        return Reference(value, np.abs(value), 0)

    def numpy_baseline(self, inputs):
        return np.ascontiguousarray(inputs["IN"].T)

    def shapes(self, sizes):
        return {"IN": (sizes["HEIGHT"], sizes["WIDTH"]), "OUT": (sizes["WIDTH"], sizes["HEIGHT"])}

    def output_shape(self, sizes):
        return (sizes["WIDTH"], sizes["HEIGHT"])

    def flops(self, sizes):
        return 0.0

    def min_bytes(self, sizes, itemsize):
        return float(2 * itemsize * sizes["WIDTH"] * sizes["HEIGHT"])
