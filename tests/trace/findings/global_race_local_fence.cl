/*---
name = "Findings corpus: a global race across a local-fence barrier"
family = "matvec"
kernel = "global_race_local_fence"
args = ["MAT", "VEC", "WIDTH", "HEIGHT", "OUT"]
global = ["HEIGHT"]
local = ["32"]
[about]
source = "the explorer's own findings corpus"
bug = "barrier(CLK_LOCAL_MEM_FENCE) does not order OUT[]"
text = """OUT[] is written, then a neighbour's element is read after a barrier that fences local memory only (a race in OpenCL 1.2)."""
---*/

__kernel void global_race_local_fence(const __global float* MAT, const __global float* VEC, uint width,
                                      uint height, __global float* OUT)
{
    uint y = get_global_id(0);
    uint l = get_local_id(0);
    __local float sink[32];
    OUT[y] = VEC[l];
    barrier(CLK_LOCAL_MEM_FENCE);
    sink[l] = OUT[get_group_id(0) * 32 + (l + 1) % 32];
}
