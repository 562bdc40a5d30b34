/*---
name = "Findings corpus: a race on local memory on one line"
family = "matvec"
kernel = "local_race"
args = ["MAT", "VEC", "WIDTH", "HEIGHT", "OUT"]
global = ["HEIGHT"]
local = ["32"]
[about]
source = "the explorer's own findings corpus"
bug = "every work-item adds into total[slot] at once"
text = """Every work-item of a group updates the same local word with a plain +=."""
---*/

__kernel void local_race(const __global float* MAT, const __global float* VEC, uint width,
                         uint height, __global float* OUT)
{
    uint y = get_global_id(0);
    uint l = get_local_id(0);
    uint slot = l / 32;  /* 0 for all: a constant index crashes the PoCL trace build */
    __local float total[1];
    if (l == 0)
        total[slot] = 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    total[slot] += MAT[y * width];
    barrier(CLK_LOCAL_MEM_FENCE);
    OUT[y] = total[slot];
}
