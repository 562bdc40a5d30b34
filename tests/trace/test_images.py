"""Image reads and writes in a trace: each ``read_image*``/``write_image*`` is an access of the
pixels it reaches, elements of a 2-D or 3-D buffer, found with the sampler's addressing: out
of range with no addressing is out of bounds, two writers of one pixel race, a read of a
pixel nothing wrote is uninitialised, and the same kernel still computes its result."""

from __future__ import annotations

import numpy as np

from explorer.engine.header.catalog import load_variant_file
from explorer.engine.record.trace_launch import TraceRequest
from explorer.engine.records import RunRequest
from explorer.trace.instrument import instrument
from explorer.trace.recorded import GLOBAL
from tests.conftest import TEST_KERNELS

IMAGES = TEST_KERNELS / "images"


def traced(executor, device, path, sizes=None):
    run = RunRequest(load_variant_file(path), sizes or {}, device_key=device.key)
    result = executor.trace(TraceRequest(run), keep_trace=True)
    assert result.trace is not None, result.result.summary()
    return result


def edited(tmp_path, name: str, old: str, new: str):
    text = (IMAGES / name).read_text()
    assert old in text
    path = tmp_path / name
    path.write_text(text.replace(old, new))
    return path


def kinds(result) -> list[str]:
    return [f.kind for f in result.analysis.findings]


def reads_per_pixel(result, name: str) -> np.ndarray:
    """How often each pixel of the image ``name`` was read in bounds, (rows, cols)."""
    t = result.trace
    b = next(i for i, info in enumerate(t.buffers) if info.name == name)
    info = t.buffers[b]
    mine = (t.buffer == b) & ~t.oob & (t.op == 0)
    counts = np.bincount(t.offset[mine] // info.elem_size, minlength=info.length)
    return counts.reshape(int(np.prod(info.shape[:-1])), info.shape[-1])


def test_a_box_blur_through_a_clamp_to_edge_sampler_reads_every_pixel_nine_times(executor, device):
    result = traced(executor, device, IMAGES / "box_blur.cl")
    assert result.result.status == "verified", result.result.summary()
    assert kinds(result) == []
    src = next(b for b in result.trace.buffers if b.name == "src")
    assert (src.image, src.shape, src.space, src.elem_size) == (2, (21, 37), GLOBAL, 4)
    # Clamped to the edge, an edge pixel is read in place of its missing neighbours.
    assert result.analysis.loads_per_element["src"] == {"min": 9, "max": 9, "mean": 9}


def test_one_pixel_past_the_right_edge_with_no_addressing_is_out_of_bounds(executor, device):
    result = traced(executor, device, IMAGES / "gradient.cl")
    found = [f for f in result.analysis.findings if f.kind == "out-of-bounds"]
    assert kinds(result) == ["out-of-bounds"] and len(found) == 1
    assert found[0].line == 27 and found[0].buffer == "src" and found[0].count == 8
    assert "reads src at (16, 0), (16, 1)" in found[0].message
    assert "outside its 16×8 pixels" in found[0].message
    assert "CLK_ADDRESS_CLAMP_TO_EDGE" in found[0].remedy


def test_clamped_to_the_edge_the_same_read_is_the_edge_pixel(executor, device, tmp_path):
    path = edited(tmp_path, "gradient.cl", 'sampler = "none"', 'sampler = "clamp_to_edge"')
    result = traced(executor, device, path)
    assert kinds(result) == []
    reads = reads_per_pixel(result, "src")
    assert reads.shape == (8, 16)
    assert (reads[:, 0] == 1).all()  # its own read only
    assert (reads[:, 1:15] == 2).all()  # its own, and its left neighbour's
    assert (reads[:, 15] == 3).all()  # and the clamped read past the edge


def test_clamp_reads_the_border_colour_past_the_edge_and_records_no_pixel(
    executor, device, tmp_path
):
    path = edited(tmp_path, "gradient.cl", 'sampler = "none"', 'sampler = "clamp"')
    result = traced(executor, device, path)
    assert kinds(result) == []
    assert (reads_per_pixel(result, "src")[:, 15] == 2).all()


def test_two_work_items_writing_one_pixel_race(executor, device):
    result = traced(executor, device, IMAGES / "overlap.cl")
    races = [f for f in result.analysis.findings if f.kind == "race"]
    assert races and all(f.buffer == "dst" and f.line == 29 for f in races)
    assert "written by several work-items" in " ".join(
        f.message for f in result.analysis.findings if f.kind == "coverage"
    )


def test_reading_a_pixel_the_host_never_filled_is_uninitialised(executor, device):
    result = traced(executor, device, IMAGES / "unwritten.cl")
    found = [f for f in result.analysis.findings if f.kind == "uninitialized"]
    assert kinds(result) == ["uninitialized"]
    assert found[0].line == 23 and found[0].buffer == "img" and found[0].count == 128


def test_a_3d_image_is_a_buffer_of_slices(executor, device):
    result = traced(executor, device, IMAGES / "volume.cl")
    assert result.result.status == "verified"
    vol = next(b for b in result.trace.buffers if b.name == "vol")
    assert (vol.image, vol.shape) == (3, (5, 6, 8))
    reads = reads_per_pixel(result, "vol").reshape(5, 6, 8)
    assert (reads[0] == 1).all() and (reads[1:4] == 2).all() and (reads[4] == 3).all()


def test_normalised_coordinates_reach_the_pixel_the_sampler_finds(executor, device):
    result = traced(executor, device, IMAGES / "normalized.cl")
    assert result.result.status == "verified", result.result.summary()
    assert (reads_per_pixel(result, "src") == 1).all()  # the pixel whose centre it is


def test_a_linear_filter_reads_the_two_by_two_pixels_around_the_coordinate(
    executor, device, tmp_path
):
    """At a pixel's centre the four pixels right and below it (clamped at the edges, where
    a pixel counted twice is read once): pixel (x, y) is read by the work-items at x - 1
    and x, y - 1 and y."""
    path = edited(tmp_path, "normalized.cl", 'filter = "nearest"', 'filter = "linear"')
    result = traced(executor, device, path)
    assert result.result.status == "verified", result.result.summary()
    y, x = np.mgrid[0:4, 0:8]
    assert np.array_equal(reads_per_pixel(result, "src"), (1 + (x > 0)) * (1 + (y > 0)))


def test_a_repeating_sampler_wraps_a_coordinate_past_the_edge(executor, device, tmp_path):
    path = edited(tmp_path, "normalized.cl", 'sampler = "clamp_to_edge"', 'sampler = "repeat"')
    path.write_text(path.read_text().replace("value = 0.0", "value = 1.0"))  # one image on
    result = traced(executor, device, path)
    assert result.result.status == "verified", result.result.summary()
    assert kinds(result) == [] and (reads_per_pixel(result, "src") == 1).all()


HELPER = """
__constant sampler_t edge = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE
                            | CLK_FILTER_NEAREST;
float at(__read_only image2d_t im, sampler_t s, int x)
{ return read_imagef(im, s, (int2)(x, 0)).x; }
float fixed(__read_only image2d_t im, int x) { return read_imagef(im, edge, (int2)(x, 0)).x; }
__kernel void k(__read_only image2d_t src, sampler_t smp, __global float *out)
{
    int x = get_global_id(0);
    out[x] = at(src, smp, x) + fixed(src, x);
}
__kernel void other(__read_only image2d_t src, sampler_t mine, __global float *out)
{
    out[0] = at(src, mine, 0);
}
"""


def test_the_sampler_of_a_helper_is_followed_to_the_kernels():
    inst = instrument(HELPER, "k")
    assert inst.not_traced == ()
    assert inst.samplers == (1,)  # the kernel's parameter smp, its mode passed by the host
    image_sites = [s for s in inst.sites if "read_imagef" in s.text]
    assert [inst.buffers[s.buffer].name for s in image_sites] == ["src", "src"]


def test_a_helper_given_two_samplers_is_not_traced_rather_than_guessed():
    source = HELPER.replace("sampler_t smp, __global", "sampler_t smp, sampler_t two, __global")
    source = source.replace("fixed(src, x)", "at(src, two, x)")
    inst = instrument(source, "k")
    assert any("addressing mode is not known" in why for _, why in inst.not_traced)
