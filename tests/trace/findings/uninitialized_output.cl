/*---
name = "Findings corpus: an uninitialised output read"
family = "matvec"
kernel = "uninitialized_output"
args = ["MAT", "VEC", "WIDTH", "HEIGHT", "OUT"]
global = ["HEIGHT"]
local = ["32"]
[about]
source = "the explorer's own findings corpus"
bug = "OUT[] is updated before anything in the launch wrote it"
text = """OUT[y] += ... reads the output before the launch wrote it."""
---*/

__kernel void uninitialized_output(const __global float* MAT, const __global float* VEC, uint width,
                                   uint height, __global float* OUT)
{
    uint y = get_global_id(0);
    uint l = get_local_id(0);
    OUT[y] += VEC[y];
}
