/*---
name = "Findings corpus: the same value written by all, read without a barrier"
family = "matvec"
kernel = "same_value_read"
args = ["MAT", "VEC", "WIDTH", "HEIGHT", "OUT"]
global = ["HEIGHT"]
local = ["32"]
[about]
source = "the explorer's own findings corpus"
bug = "work-items read flag[slot] while others still write it"
text = """Every work-item stores 1 and at once reads it back: the writes agree, the read races."""
---*/

__kernel void same_value_read(const __global float* MAT, const __global float* VEC, uint width,
                              uint height, __global float* OUT)
{
    uint y = get_global_id(0);
    uint l = get_local_id(0);
    uint slot = l / 32;  /* 0 for all: a constant index crashes the PoCL trace build */
    __local int flag[1];
    flag[slot] = 1;
    OUT[y] = (float)flag[slot];
}
