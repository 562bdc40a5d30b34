"""Guessed custom declarations and the header they are written as."""

import pytest

from explorer.description.declarations import (
    BufferDecl,
    DeclarationError,
    LocalDecl,
    ScalarDecl,
)
from explorer.engine.header.catalog import with_header
from explorer.engine.header.guess import custom_header, dimensions, guess_declarations

VECTORS_AND_STRUCTS = """
typedef struct { float x, y; int id; } particle;
__kernel void step(__global particle* ps, __constant float4* forces, __local float4* tile,
                   const float dt, const uint count, float2 wind)
{
    int i = get_global_id(0), j = get_global_id(1);
    tile[get_local_id(0)] = forces[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i < count) { ps[i].x += dt * tile[0].x + wind.x; ps[j].y = 0.0f; }
}
"""


def test_types_access_and_counts_come_from_the_source():
    guess = guess_declarations(VECTORS_AND_STRUCTS, "step")
    assert dimensions(VECTORS_AND_STRUCTS) == 2
    assert guess.sizes == (("count", 1024),)
    assert guess.global_size == ("count", "count") and guess.local_size == ("8", "8")
    params = {p.name: p for p in guess.params}
    # A struct is declared as its bytes; a __constant pointer is read; a pointer the kernel
    # both reads and writes is readwrite and a result.
    assert params["ps"] == BufferDecl("ps", "uchar", "count * 12", access="readwrite", result=True)
    assert params["forces"] == BufferDecl("forces", "float4", "count", access="read")
    assert params["tile"] == LocalDecl("tile", "float4", "L0 * L1")
    assert params["dt"] == ScalarDecl("dt", "float", ("1.5",))
    assert params["count"] == ScalarDecl("count", "uint", ("count",))
    assert params["wind"] == ScalarDecl("wind", "float2", ("1.5",))


def test_the_written_header_reads_back_as_the_same_declarations(tmp_path):
    guess = guess_declarations(VECTORS_AND_STRUCTS, "step")
    header = custom_header("particles", "step", guess, reference="")
    variant = with_header(VECTORS_AND_STRUCTS, header, tmp_path / "particles.cl")
    assert variant.family == "custom" and variant.kernel == "step"
    assert variant.custom.params == guess.params
    assert variant.custom.sizes == guess.sizes
    assert (variant.global_size, variant.local_size) == (guess.global_size, guess.local_size)
    assert not variant.custom.checked  # no reference given: runs are "ran, not checked"


def test_an_image_parameter_is_named():
    source = "__kernel void k(read_only image2d_t img, __global float* out) { out[0] = 1; }"
    with pytest.raises(DeclarationError, match="'img'"):
        guess_declarations(source, "k")


HISTOGRAM_BODY = """#define BLOCK_SIZE 32
__kernel void count(__global const uint* values, __global uint* bins, const uint n)
{
    uint i = get_global_id(0);
    if (i < n)
        atomic_inc(&bins[values[i] % 64]);
}
"""

BLUR_BODY = """__kernel __attribute__((reqd_work_group_size(16, 16, 1)))
void box(__global const float* src, __global float* dst, int width, int height)
{
    int x = get_global_id(0), y = get_global_id(1);
    dst[y * width + x] = 0.25f * (src[y * width + x] + src[y * width + min(x + 1, width - 1)]
                                 + src[min(y + 1, height - 1) * width + x] + src[y * width + x]);
}
"""


def test_the_guess_reads_the_kernels_body():
    """An accumulator starts from zero, a #defined tile side or reqd_work_group_size gives the
    local size, and a two-dimensional grid over a buffer of both sizes shows it as a matrix."""
    counted = guess_declarations(HISTOGRAM_BODY, "count")
    bins = next(p for p in counted.params if p.name == "bins")
    assert bins.contents == "zeros" and bins.access == "readwrite"
    assert counted.local_size == ("32",)
    box = guess_declarations(BLUR_BODY, "box")
    assert box.local_size == ("16", "16")
    shapes = {p.name: p.shape for p in box.params if isinstance(p, BufferDecl)}
    assert shapes == {"src": ("height", "width"), "dst": ("height", "width")}


def test_a_guessed_two_dimensional_kernel_runs_and_shows_its_buffers_as_matrices(
    executor, device, tmp_path
):
    from explorer.engine.header.catalog import load_variant_file
    from explorer.engine.records import RunRequest

    header = custom_header("box", "box", guess_declarations(BLUR_BODY, "box"))
    path = tmp_path / "box.cl"
    path.write_text(header + "#line 1\n" + BLUR_BODY, encoding="utf-8")
    result = executor.run(RunRequest(load_variant_file(path), {}, device_key=device.key))
    assert result.status == "unchecked", result.summary()
    assert result.shapes["dst"] == (64, 64) and result.output.shape == (64, 64)


def test_a_size_parameter_named_like_a_python_keyword_gets_a_size_of_its_own_name(tmp_path):
    """Rodinia's backprop takes ``int in``: the guess names its size ``in_`` (a name
    expressions can use), passes it to ``in``, and the header it writes opens."""
    from explorer.engine.header.catalog import with_header
    from explorer.engine.header.guess import custom_header

    source = (
        "__kernel void forward(__global const float* x, __global float* y, int in, int hid)\n"
        "{ int i = get_global_id(0); if (i < in) y[i] = x[i] * hid; }\n"
    )
    guess = guess_declarations(source, "forward")
    assert [name for name, _ in guess.sizes] == ["in_", "hid"]
    variant = with_header(source, custom_header("forward", "forward", guess), tmp_path / "f.cl")
    assert variant.custom is not None
