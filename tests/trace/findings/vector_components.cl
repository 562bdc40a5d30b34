/*---
name = "Findings corpus: components of one vector written by different work-items"
family = "matvec"
kernel = "vector_components"
args = ["MAT", "VEC", "WIDTH", "HEIGHT", "OUT"]
global = ["HEIGHT"]
local = ["32"]
[about]
source = "the explorer's own findings corpus"
bug = ""
text = """Four work-items fill the four uchars of a uchar4, two the two shorts of a short2."""
---*/

__kernel void vector_components(const __global float* MAT, const __global float* VEC, uint width,
                                uint height, __global float* OUT)
{
    uint y = get_global_id(0);
    uint l = get_local_id(0);
    uint slot = l / 32;  /* 0 for all: a constant index crashes the PoCL trace build */
    __local uchar4 quad[8];
    __local short2 pair[16];
    uint c = l % 4;
    if (c == 0)
        quad[l / 4].x = (uchar)l;
    else if (c == 1)
        quad[l / 4].y = (uchar)l;
    else if (c == 2)
        quad[l / 4].z = (uchar)l;
    else
        quad[l / 4].w = (uchar)l;
    if (l % 2 == 0)
        pair[l / 2].x = (short)l;
    else
        pair[l / 2].y = (short)l;
    barrier(CLK_LOCAL_MEM_FENCE);
    OUT[y] = (float)quad[l / 4].x + (float)pair[l / 2].y;
}
