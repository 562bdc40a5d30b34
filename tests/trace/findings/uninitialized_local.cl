/*---
name = "Findings corpus: an uninitialised local read"
family = "matvec"
kernel = "uninitialized_local"
args = ["MAT", "VEC", "WIDTH", "HEIGHT", "OUT"]
global = ["HEIGHT"]
local = ["32"]
[about]
source = "the explorer's own findings corpus"
bug = "sum[] is updated before anything wrote it"
text = """sum[l] += ... reads sum[] before any work-item wrote it."""
---*/

__kernel void uninitialized_local(const __global float* MAT, const __global float* VEC, uint width,
                                  uint height, __global float* OUT)
{
    uint y = get_global_id(0);
    uint l = get_local_id(0);
    __local float sum[32];
    sum[l] += MAT[y * width];
    barrier(CLK_LOCAL_MEM_FENCE);
    OUT[y] = sum[l];
}
