/*---
name = "Findings corpus: an output element never written"
family = "matvec"
kernel = "coverage_never_written"
args = ["MAT", "VEC", "WIDTH", "HEIGHT", "OUT"]
global = ["HEIGHT"]
local = ["32"]
[about]
source = "the explorer's own findings corpus"
bug = "the last element of OUT is never written"
text = """Every work-item but the last writes its element."""
---*/

__kernel void coverage_never_written(const __global float* MAT, const __global float* VEC, uint width,
                                     uint height, __global float* OUT)
{
    uint y = get_global_id(0);
    uint l = get_local_id(0);
    if (y < height - 1)
        OUT[y] = VEC[y];
}
