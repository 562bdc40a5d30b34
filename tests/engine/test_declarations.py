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
