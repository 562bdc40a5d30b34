/*---
name = "Findings corpus: an int written over bytes that work-items write"
family = "matvec"
kernel = "uchar_int_overlap"
args = ["MAT", "VEC", "WIDTH", "HEIGHT", "OUT"]
global = ["HEIGHT"]
local = ["32"]
[about]
source = "the explorer's own findings corpus"
bug = "work-item 0 writes an int over bytes 4 to 7 while work-items 4 to 7 write them"
text = """A uchar per work-item, and one int across four of them in the same phase."""
---*/

__kernel void uchar_int_overlap(const __global float* MAT, const __global float* VEC, uint width,
                                uint height, __global float* OUT)
{
    uint y = get_global_id(0);
    uint l = get_local_id(0);
    uint slot = l / 32;  /* 0 for all: a constant index crashes the PoCL trace build */
    __local uchar bytes[32];
    bytes[l] = (uchar)l;
    if (l == 0)
        ((__local int*)bytes)[slot + 1] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    OUT[y] = (float)bytes[31 - l];
}
