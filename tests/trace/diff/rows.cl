/*---
name = "A work-item per row"
family = "matvec"
kernel = "rows"
args = ["MAT", "VEC", "WIDTH", "HEIGHT", "OUT"]
global = ["HEIGHT"]
local = ["4"]
[about]
source = "the trace diff's test kernels"
text = "Each work-item sums its row of MAT times VEC."
---*/
__kernel void rows(const __global float* MAT, const __global float* VEC, uint width, uint height,
                   __global float* OUT)
{
    uint y = get_global_id(0);
    float sum = 0.0f;
    for (uint x = 0; x < width; x++)
        sum += MAT[y * width + x] * VEC[x];
    OUT[y] = sum;
}
