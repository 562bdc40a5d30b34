/*---
name = "Findings corpus: a write into an input"
family = "matvec"
kernel = "write_to_input"
args = ["MAT", "VEC", "WIDTH", "HEIGHT", "OUT"]
global = ["HEIGHT"]
local = ["32"]
[about]
source = "the explorer's own findings corpus"
bug = "VEC[] is an input, and work-item 0 overwrites VEC[0]"
text = """Work-item 0 clears an element of its input vector."""
---*/

__kernel void write_to_input(const __global float* MAT, __global float* VEC, uint width,
                             uint height, __global float* OUT)
{
    uint y = get_global_id(0);
    uint l = get_local_id(0);
    OUT[y] = VEC[y];
    if (y == 0)
        VEC[0] = 0.0f;
}
