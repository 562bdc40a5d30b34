"""A program that filters pictures through OpenCL images (``programs/images.py``): its image
and sampler arguments are captured (format, size, contents before and after, the sampler's
properties), and each launch replays, is judged by what it left in the program, traces and
saves as a kernel file of its own; a capture whose image the explorer cannot declare is
refused naming the field."""

from __future__ import annotations

import json
import re
import shutil

import numpy as np
import pytest

from explorer.capture.folder import CaptureError, load_capture
from explorer.capture.replay import launch_variant, save_launch
from explorer.engine.header.catalog import load_variant_file
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest


def test_images_and_samplers_are_captured_with_their_format_size_and_contents(captured):
    capture = captured("images.py")
    assert [launch.label for launch in capture.launches] == [
        "blur#1", "brighten#1", "depth_sum#1",
    ]  # fmt: skip
    assert all(launch.data for launch in capture.launches)
    src, smp, dst = capture.launches[0].args
    assert (src.kind, src.image, src.channel_order, src.channel_type) == (
        "image", "IMAGE2D", "R", "FLOAT",
    )  # fmt: skip
    assert (src.width, src.height, src.depth, src.nbytes) == (20, 12, 0, 20 * 12 * 4)
    picture = np.random.default_rng(7).random((12, 20), dtype=np.float32)
    assert np.array_equal(np.load(capture.path(src.before)).reshape(12, 20), picture)
    assert (smp.kind, smp.normalized, smp.address, smp.filter) == (
        "sampler", False, "CLAMP_TO_EDGE", "NEAREST",
    )  # fmt: skip
    assert dst.changed and not src.changed
    blurred = np.load(capture.path(dst.after)).reshape(12, 20, 4)
    assert np.allclose(blurred[..., 3], 1.0) and np.allclose(blurred[3, 5, 1:3], (5, 3))
    rgba = capture.launches[1].args[0]
    assert (rgba.channel_type, rgba.dtype, rgba.nbytes) == ("UNORM_INT8", "uint8", 20 * 12 * 4)
    vol = capture.launches[2].args[0]
    assert (vol.image, vol.depth) == ("IMAGE3D", 3)


@pytest.mark.parametrize("launch", ["blur", "brighten", "depth_sum"])
def test_each_launch_replays_matching_the_original_run(captured, executor, device, launch):
    variant = launch_variant(captured("images.py"), launch)
    result = executor.run(RunRequest(variant, {}, device_key=device.key, repeat=1))
    assert result.status == "verified", result.summary()
    assert result.verdict.compared_with == "the original run"


def test_a_replayed_image_launch_traces_its_pixels(captured, executor, device):
    variant = launch_variant(captured("images.py"), "blur")
    traced = executor.trace(TraceRequest(RunRequest(variant, {}, device_key=device.key)))
    assert traced.result.status == "verified", traced.result.summary()
    assert traced.analysis.findings == ()
    # Clamped to the edge, each of the 20×12 pixels is read nine times.
    assert traced.analysis.loads_per_element["src"] == {"min": 9, "max": 9, "mean": 9}


def test_a_saved_image_launch_is_a_kernel_file_that_declares_them(
    captured, executor, device, tmp_path
):
    saved = save_launch(captured("images.py"), "blur", tmp_path / "saved")
    text = saved.read_text()
    assert 'image = "float"\nchannels = "RGBA"\nwidth = 20\nheight = 12' in text
    assert 'sampler = "clamp_to_edge"\nnormalized = false\nfilter = "nearest"' in text
    variant = load_variant_file(saved)
    result = executor.run(RunRequest(variant, {}, device_key=device.key, repeat=1))
    assert result.status == "verified", result.summary()
    assert result.outputs["dst"].shape == (12, 20, 4)


def edited(capture, tmp_path, change):
    """A copy of the capture whose first launch's arguments ``change`` edits in place."""
    folder = tmp_path / "edited"
    shutil.copytree(capture.folder, folder)
    document = json.loads((folder / "capture.json").read_text())
    change(document["launches"][0]["args"])
    (folder / "capture.json").write_text(json.dumps(document))
    return load_capture(folder)


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("channel_type", "HALF_FLOAT", "channel_type: HALF_FLOAT images are not replayed"),
        ("channel_order", "ARGB", "args[0].channel_order: ARGB images are not replayed"),
        ("image", "IMAGE1D", "args[0].image: an IMAGE1D; the explorer replays 2-D and 3-D"),
        ("width", 21, "args[0].bytes: 960 bytes of float32 are not an IMAGE2D of 21×12"),
    ],
)
def test_an_image_the_explorer_cannot_declare_is_refused_naming_the_field(
    captured, tmp_path, field, value, says
):
    def change(args):
        args[0][field] = value

    capture = edited(captured("images.py"), tmp_path, change)
    with pytest.raises(CaptureError, match=re.escape(says)):
        launch_variant(capture, "blur")


def test_a_sampler_given_for_an_image_is_refused_naming_the_argument(captured, tmp_path):
    def change(args):
        args[0], args[1] = (
            {**args[1], "index": 0, "name": "src"},
            {**args[0], "index": 1, "name": "smp"},
        )

    capture = edited(captured("images.py"), tmp_path, change)
    with pytest.raises(CaptureError, match=r"argument 0 \(src\) was given a sampler"):
        launch_variant(capture, "blur")
