"""Image and sampler arguments declared in a kernel file's header: made from their declared
contents, bound as ``cl.Image``/``cl.Sampler``, read back where written, and judged against a
numpy reference that sees each image as an array of shape (H, W[, channels])."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from explorer.description.declarations import DeclarationError
from explorer.engine.header.catalog import CatalogError, load_variant_file
from explorer.engine.records import RunRequest
from tests.conftest import TEST_KERNELS

IMAGES = TEST_KERNELS / "images"


def run(executor, device, path, sizes=None):
    variant = load_variant_file(path)
    return executor.run(RunRequest(variant, sizes or {}, device_key=device.key, repeat=1))


def mutant(tmp_path, name: str, old: str, new: str):
    """The shipped test kernel ``name`` with one piece of its source changed."""
    text = (IMAGES / name).read_text()
    assert old in text
    path = tmp_path / name
    path.write_text(text.replace(old, new))
    return path


def test_a_box_blur_through_a_clamp_to_edge_sampler_is_verified_against_numpy(executor, device):
    result = run(executor, device, IMAGES / "box_blur.cl")
    assert result.status == "verified", result.summary()
    assert result.outputs["out"].shape == (21, 37)
    assert result.inputs["src"].shape == (21, 37)  # the image as the reference sees it


def test_a_blur_that_reads_one_pixel_too_far_right_is_wrong(executor, device, tmp_path):
    path = mutant(tmp_path, "box_blur.cl", "(int2)(x + dx, y + dy)", "(int2)(x + dx + 1, y + dy)")
    result = run(executor, device, path)
    assert result.status == "wrong", result.summary()


def test_an_image_written_by_the_kernel_is_read_back_and_judged(executor, device):
    """Image to image: the write-only result is copied back from the device and compared
    with the Gaussian of the IOU picture, and of random pixels in the probe."""
    result = run(executor, device, IMAGES / "gaussian.cl")
    assert result.status == "verified", result.summary()
    assert result.verdict.probe_verified
    out = result.outputs["dst"]
    assert out.shape == (16, 24) and out.dtype == np.float32
    assert 0 < out.min() < out.max() <= 1  # the blurred letters, not zeros left alone


def test_a_gaussian_with_a_weight_off_is_wrong(executor, device, tmp_path):
    path = mutant(tmp_path, "gaussian.cl", "{1.0f, 2.0f, 1.0f}", "{1.0f, 2.0f, 2.0f}")
    assert run(executor, device, path).status == "wrong"


def test_rgba_bytes_are_read_as_unorm_floats_and_an_rgba_float_image_comes_back(
    executor, device, tmp_path
):
    result = run(executor, device, IMAGES / "brighten.cl")
    assert result.status == "verified", result.summary()
    assert result.outputs["dst"].shape == (20, 32, 4)
    assert result.inputs["src"].shape == (20, 32, 4) and result.inputs["src"].dtype == np.uint8
    read = "read_imagef(src, exact, at)"
    swapped = mutant(tmp_path, "brighten.cl", read, f"{read}.zyxw")
    result = run(executor, device, swapped)
    assert result.status == "wrong"
    # The grey IOU picture has every channel alike: only the random probe's channels differ.
    assert result.verdict.max_abs_error == 0 and not result.verdict.probe_verified


def test_a_3d_image_is_read_slice_by_slice(executor, device, tmp_path):
    assert run(executor, device, IMAGES / "volume.cl").status == "verified"
    below = mutant(tmp_path, "volume.cl", "(int4)(x, y, z + 1, 0)", "(int4)(x, y + 1, z, 0)")
    assert run(executor, device, below).status == "wrong"


def test_an_image_larger_than_its_sizes_say_is_rebuilt_at_other_sizes(executor, device):
    result = run(executor, device, IMAGES / "box_blur.cl", {"W": 9, "H": 70})
    assert result.status == "verified", result.summary()
    assert result.outputs["out"].shape == (70, 9)


HEADER = """/*---
name = "copy"
family = "custom"
kernel = "copy"
global = ["W", "H"]
local = ["4", "4"]
[sizes]
W = 8
H = 8
[args.src]
{src}
[args.dst]
buffer = "float"
count = "W * H"
contents = "zeros"
access = "write"
result = true
---*/
__constant sampler_t smp = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST;
__kernel void copy({qualifier} image2d_t src, __global float *dst)
{{
    int x = get_global_id(0), y = get_global_id(1);
    dst[y * 8 + x] = read_imagef(src, smp, (int2)(x, y)).x;
}}
"""


def header_file(tmp_path, src: str, qualifier: str = "__read_only"):
    path = tmp_path / "copy.cl"
    path.write_text(HEADER.format(src=src, qualifier=qualifier))
    return path


@pytest.mark.parametrize(
    ("src", "words"),
    [
        ('image = "float"\nwidth = "W"', "key 'height': missing"),
        ('image = "rgb"\nwidth = "W"\nheight = "H"', "key 'image': must be a channel type"),
        ('image = "float"\nchannels = "RGB"\nwidth = "W"\nheight = "H"', "key 'channels'"),
        ('image = "float"\nwidth = "W"\nheight = "H"\ncount = "N"', "key 'count' does not apply"),
        ('image = "float"\nwidth = "W"\nheight = "H"\nresult = true', "give it access = 'write'"),
        ('image = "float"\nwidth = "Q"\nheight = "H"', "key 'width': 'Q' uses ['Q']"),
    ],
)
def test_a_bad_image_declaration_names_the_parameter_and_the_key(tmp_path, src, words):
    with pytest.raises((CatalogError, DeclarationError), match="parameter 'src'") as caught:
        load_variant_file(header_file(tmp_path, src))
    assert words in str(caught.value)


@pytest.mark.parametrize(
    ("src", "qualifier", "words"),
    [
        ('buffer = "float"\ncount = "W * H"', "__read_only", "declare it with the key 'image'"),
        (
            'image = "float"\nwidth = "W"\nheight = "H"\naccess = "write"',
            "__read_only",
            "read_only in the source: declare it with access = 'read'",
        ),
        (
            'image = "float"\nwidth = "W"\nheight = "H"\ndepth = "2"',
            "__read_only",
            "its declaration gives width, height and depth (an image3d_t)",
        ),
        (
            'sampler = "clamp"',
            "__read_only",
            "image2d_t in the source: declare it with the key 'image'",
        ),
    ],
)
def test_a_declaration_that_does_not_match_the_kernels_image_is_refused_at_run(
    executor, device, tmp_path, src, qualifier, words
):
    result = run(executor, device, header_file(tmp_path, src, qualifier))
    assert result.status == "error" and result.error_kind == "input"
    assert "parameter 'src'" in result.error and words in result.error


def test_a_device_without_image_support_refuses_the_launch_in_words():
    from explorer.engine.launch import images

    description = load_variant_file(IMAGES / "box_blur.cl").model.describe(
        _setting(), (), "row-major", np.dtype("float32")
    )
    no_images = SimpleNamespace(devices=[SimpleNamespace(image_support=0)])
    refusal = images.device_refusal(SimpleNamespace(), no_images, description, "Tiny GPU")
    assert refusal is not None
    assert "Tiny GPU does not support images" in refusal.reason
    assert "src is an image2d_t" in refusal.reason


def _setting():
    from explorer.description.launch import Setting

    return Setting({"W": 37, "H": 21}, {}, (8, 8))
