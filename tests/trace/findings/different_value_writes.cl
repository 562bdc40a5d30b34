/*---
name = "Findings corpus: work-items write different values to one element"
family = "matvec"
kernel = "different_value_writes"
args = ["MAT", "VEC", "WIDTH", "HEIGHT", "OUT"]
global = ["HEIGHT"]
local = ["32"]
[about]
source = "the explorer's own findings corpus"
bug = "half the work-items store 0, half store 1, at once"
text = """Every work-item sets ready[slot] to its own parity: a write-write race, values or not."""
---*/

__kernel void different_value_writes(const __global float* MAT, const __global float* VEC, uint width,
                                     uint height, __global float* OUT)
{
    uint y = get_global_id(0);
    uint l = get_local_id(0);
    uint slot = l / 32;  /* 0 for all: a constant index crashes the PoCL trace build */
    __local int ready[1];
    ready[slot] = (int)(l & 1);
    barrier(CLK_LOCAL_MEM_FENCE);
    OUT[y] = (float)ready[slot];
}
