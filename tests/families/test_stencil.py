"""The stencil family: a 3×3 blur [1 2 1; 2 4 2; 1 2 1]/16 with clamp-to-edge borders."""

from __future__ import annotations

import numpy as np

from explorer.description.text_image import text_mask
from explorer.families import get_family

STENCIL = get_family("stencil")


def _reference(image: np.ndarray) -> np.ndarray:
    sizes = {"WIDTH": image.shape[1], "HEIGHT": image.shape[0]}
    return STENCIL.reference({"IN": image}, sizes).value


def test_a_constant_image_stays_constant_up_to_the_borders():
    out = _reference(np.full((5, 7), 3.0))
    assert np.allclose(out, 3.0)


def test_border_pixels_repeat_the_edge():
    image = np.zeros((3, 3))
    image[0, 0] = 16.0
    out = _reference(image)
    # The corner pixel stands in for the three missing neighbours above and to its left:
    # weights 1 + 2 + 2 + 4 = 9 of 16 fall on it.
    assert out[0, 0] == 9.0
    assert out[1, 1] == 1.0
    assert out[2, 2] == 0.0


def test_iou_input_blurs_into_readable_text():
    sizes = {"WIDTH": 192, "HEIGHT": 96}
    inputs = STENCIL.make_inputs(sizes, np.dtype("float32"), "iou", "IOU")
    out = _reference(inputs["IN"])
    mask = text_mask("IOU", 96, 192)
    assert out[mask].mean() < 0.35 < 0.9 < out[~mask].mean()
    grey = (out > 0.05) & (out < 0.95)
    assert grey.any(), "the edges of the strokes come out grey"
