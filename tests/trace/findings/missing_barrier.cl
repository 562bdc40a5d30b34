/*---
name = "Findings corpus: a missing barrier"
family = "matvec"
kernel = "missing_barrier"
args = ["MAT", "VEC", "WIDTH", "HEIGHT", "OUT"]
global = ["HEIGHT"]
local = ["32"]
[about]
source = "the explorer's own findings corpus"
bug = "tile[] is read before the neighbour's write is ordered"
text = """Each work-item writes its own tile[] element and reads its neighbour's with no barrier between."""
---*/

__kernel void missing_barrier(const __global float* MAT, const __global float* VEC, uint width,
                              uint height, __global float* OUT)
{
    uint y = get_global_id(0);
    uint l = get_local_id(0);
    __local float tile[32];
    tile[l] = VEC[l];
    OUT[y] = tile[(l + 1) % 32];
}
