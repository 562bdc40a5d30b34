/*---
name = "Findings corpus: atomic_cmpxchg with losers"
family = "matvec"
kernel = "atomic_cmpxchg_loser"
args = ["MAT", "VEC", "WIDTH", "HEIGHT", "OUT"]
global = ["HEIGHT"]
local = ["32"]
[about]
source = "the explorer's own findings corpus"
bug = ""
text = """Every work-item tries to claim owner[slot]; one succeeds, the others change nothing."""
---*/

__kernel void atomic_cmpxchg_loser(const __global float* MAT, const __global float* VEC, uint width,
                                   uint height, __global float* OUT)
{
    uint y = get_global_id(0);
    uint l = get_local_id(0);
    uint slot = l / 32;  /* 0 for all: a constant index crashes the PoCL trace build */
    __local int owner[1];
    if (l == 0)
        owner[slot] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_cmpxchg(&owner[slot], 0, (int)l + 1);
    barrier(CLK_LOCAL_MEM_FENCE);
    OUT[y] = (float)owner[slot];
}
