/*---
name = "Findings corpus: a local read past the end"
family = "matvec"
kernel = "out_of_bounds_local"
args = ["MAT", "VEC", "WIDTH", "HEIGHT", "OUT"]
global = ["HEIGHT"]
local = ["32"]
[about]
source = "the explorer's own findings corpus"
bug = "work-item 31 reads tile[32]"
text = """Each work-item reads its right neighbour's tile[] element; the last one reads past the array."""
---*/

__kernel void out_of_bounds_local(const __global float* MAT, const __global float* VEC, uint width,
                                  uint height, __global float* OUT)
{
    uint y = get_global_id(0);
    uint l = get_local_id(0);
    __local float tile[32];
    tile[l] = VEC[l];
    barrier(CLK_LOCAL_MEM_FENCE);
    OUT[y] = tile[l + 1];
}
