"""HIST[b] = how many of the VALUES integers of IN equal b, for BINS bins (b = 0 … BINS−1).

The first family whose kernels accumulate: HIST starts from zeros and every kernel adds to it
with atomics, so its access is "readwrite". Only the first launch, which starts from those
zeros, is judged; later (timed) launches keep adding to the same bins.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import numpy as np

from explorer.description.launch import Fill
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
)


class Histogram(Family):
    family = "histogram"
    order = 60
    description = "Histogram HIST[b] = count of IN[i] == b (IN: VALUES integers in [0, BINS))."
    roles = ("VALUES", "BINS", "IN", "HIST", "PARTIAL")
    required_roles = ("IN", "HIST")
    output_role = "HIST"
    # One work-group's own bins in local memory: BINS ints (sized in :meth:`describe`).
    local_roles = ("PARTIAL",)
    # The kernels add to HIST: it starts from zeros, and only the first launch is judged.
    output_contents: ClassVar[Any] = Fill(0.0)
    output_access: ClassVar[str] = "readwrite"
    output_writes: ClassVar[str] = "none"  # a bin no value fell into keeps its zero
    size_names = ("VALUES", "BINS")
    default_sizes: ClassVar[dict[str, int]] = {"VALUES": 1 << 20, "BINS": 256}
    size_help: ClassVar[dict[str, str]] = {
        "VALUES": "values counted (length of IN)",
        "BINS": "bins (length of HIST); the values are 0 to BINS-1",
    }
    test_sizes = (
        {"VALUES": 1, "BINS": 1},
        {"VALUES": 17, "BINS": 16},
        {"VALUES": 1000, "BINS": 64},
        {"VALUES": 4096, "BINS": 1},  # every value in one bin: all atomics on one address
        {"VALUES": 300, "BINS": 1000},  # more bins than values and than work-items in a group
        {"VALUES": 1001, "BINS": 17},
        {"VALUES": 4096, "BINS": 256},
    )
    input_presets = ("iou", "random", "image")
    hiding: ClassVar[dict[str, tuple[str, str]]] = {
        "iou": ("the IOU input", "almost every value falls into the first or the last bin"),
        "image": ("the image input", "an image's grey levels crowd into a few bins"),
    }
    ladder = ("naive", "local-bins", "grid-stride")
    launch_global = ("VALUES",)
    launch_local = ("256",)
    role_aliases: ClassVar[dict[str, tuple[str, ...]]] = {
        "IN": ("in", "input", "data", "src", "x", "keys"),
        "HIST": ("hist", "histogram", "counts", "out", "output", "result", "bins"),
        "PARTIAL": ("partial", "local_hist", "lhist", "local_bins", "lbins", "scratch", "tmp"),
        "VALUES": ("n", "count", "size", "length", "num", "nvalues"),
        "BINS": ("nbins", "num_bins", "bin_count", "nb"),
    }
    torch_what = "torch.bincount (CUDA atomics)"

    def header_dtype(self, meta: dict[str, Any], where: str) -> str:
        """int32, also when the header says nothing: the bins are counts, and atomic_inc
        and atomic_add work on integers."""
        dtype = str(meta.get("dtype", "int32"))
        if dtype != "int32":
            raise ValueError(f'{where}: a histogram counts in int32; dtype must be "int32"')
        return dtype

    def local_bytes(self, role: str, sizes: Sizes, local_size: tuple[int, ...]) -> int:
        """PARTIAL holds BINS counters whatever the local size."""
        return 4 * sizes["BINS"]

    def make_inputs(
        self,
        sizes: Sizes,
        dtype: np.dtype,
        preset: str,
        text: str = "IOU",
        image_path: str | None = None,
        seed: int = RANDOM_SEED,
    ) -> Arrays:
        n, bins = sizes["VALUES"], sizes["BINS"]
        if preset in ("iou", "image"):
            # The picture's grey levels, row after row, quantised into the bins: the text's
            # black falls in bin 0 and the white around it in the last bin, most values in
            # one bin (many work-items adding to the same counter at once).
            cols = math.isqrt(n - 1) + 1
            picture = grey_picture(-(-n // cols), cols, preset, text, image_path)
            values = np.minimum((picture.ravel()[:n] * bins).astype(np.int64), bins - 1)
        elif preset == "random":
            values = np.random.default_rng(seed).integers(0, bins, size=n)
        else:
            raise InputError(
                f"histogram inputs are {', '.join(self.input_presets)}; not {preset!r}"
            )
        return {"IN": values.astype(dtype)}

    def reference(self, inputs: Arrays, sizes: Sizes) -> Reference:
        counts = np.bincount(inputs["IN"].astype(np.int64).ravel(), minlength=sizes["BINS"]).astype(
            np.float64
        )
        return Reference(counts, counts, 1)

    def needed(
        self, needs: Needs, where: tuple[int, ...], inputs: Mapping[str, np.ndarray], sizes: Sizes
    ) -> None:
        """HIST[b] needs the values of IN that equal b (by the input's values: which
        elements those are depends on the data)."""
        (b,) = where
        values = inputs.get("IN")
        if values is not None:
            needs["IN"][:] = np.asarray(values).ravel()[: needs["IN"].size] == b

    def numpy_baseline(self, inputs: Arrays) -> np.ndarray:
        # bincount knows no BINS here: its length is the largest value + 1 (BINS when the
        # last bin is used); it times the counting, not the shape.
        values = inputs["IN"]
        return np.bincount(values.astype(np.int64) if values.dtype.kind == "f" else values)

    def torch_op(self, sizes: Sizes, rand: TorchRand) -> Callable[[], Any]:
        bins = sizes["BINS"]
        x = rand(sizes["VALUES"])  # uniform in [-1, 1): bins 0 … BINS-1, evenly
        values = ((x + 1.0) * (bins / 2)).long().clamp(0, bins - 1)
        return lambda: values.bincount(minlength=bins)  # torch.bincount, without importing torch

    def shapes(self, sizes: Sizes) -> dict[str, tuple[int, ...]]:
        return {"IN": (sizes["VALUES"],), "HIST": (sizes["BINS"],)}

    def flops(self, sizes: Sizes) -> float:
        return 0.0

    def min_bytes(self, sizes: Sizes, itemsize: int) -> float:
        return float(itemsize * (sizes["VALUES"] + sizes["BINS"]))
