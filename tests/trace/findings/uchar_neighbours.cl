/*---
name = "Findings corpus: neighbouring bytes written by different work-items"
family = "matvec"
kernel = "uchar_neighbours"
args = ["MAT", "VEC", "WIDTH", "HEIGHT", "OUT"]
global = ["HEIGHT"]
local = ["32"]
[about]
source = "the explorer's own findings corpus"
bug = ""
text = """Work-item l writes bytes[l]: four work-items share each 4-byte word, no byte."""
---*/

__kernel void uchar_neighbours(const __global float* MAT, const __global float* VEC, uint width,
                               uint height, __global float* OUT)
{
    uint y = get_global_id(0);
    uint l = get_local_id(0);
    uint slot = l / 32;  /* 0 for all: a constant index crashes the PoCL trace build */
    __local uchar bytes[32];
    bytes[l] = (uchar)l;
    barrier(CLK_LOCAL_MEM_FENCE);
    OUT[y] = (float)bytes[31 - l];
}
