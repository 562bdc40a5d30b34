/*---
name = "Findings corpus: a global read past the end"
family = "matvec"
kernel = "out_of_bounds_global"
args = ["MAT", "VEC", "WIDTH", "HEIGHT", "OUT"]
global = ["HEIGHT"]
local = ["32"]
[about]
source = "the explorer's own findings corpus"
bug = "the last row reads MAT one element past its end"
text = """Each work-item reads the first element of the next row; the last row has none."""
---*/

__kernel void out_of_bounds_global(const __global float* MAT, const __global float* VEC, uint width,
                                   uint height, __global float* OUT)
{
    uint y = get_global_id(0);
    uint l = get_local_id(0);
    OUT[y] = MAT[y * width + width];
}
