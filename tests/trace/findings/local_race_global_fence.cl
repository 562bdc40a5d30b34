/*---
name = "Findings corpus: a local race across a global-fence barrier"
family = "matvec"
kernel = "local_race_global_fence"
args = ["MAT", "VEC", "WIDTH", "HEIGHT", "OUT"]
global = ["HEIGHT"]
local = ["32"]
[about]
source = "the explorer's own findings corpus"
bug = "barrier(CLK_GLOBAL_MEM_FENCE) does not order tile[]"
text = """tile[] is written, then a neighbour's element is read after a barrier that fences global memory only."""
---*/

__kernel void local_race_global_fence(const __global float* MAT, const __global float* VEC, uint width,
                                      uint height, __global float* OUT)
{
    uint y = get_global_id(0);
    uint l = get_local_id(0);
    __local float tile[32];
    tile[l] = VEC[l];
    barrier(CLK_GLOBAL_MEM_FENCE);
    OUT[y] = tile[(l + 1) % 32];
}
