/*---
name = "A work-item per row, one column short"
family = "matvec"
kernel = "rows_short"
args = ["MAT", "VEC", "WIDTH", "HEIGHT", "OUT"]
global = ["HEIGHT"]
local = ["4"]
[about]
source = "the trace diff's test kernels"
text = "The loop bound stops one column early (an off-by-one bound)."
---*/
__kernel void rows_short(const __global float* MAT, const __global float* VEC, uint width,
                         uint height, __global float* OUT)
{
    uint y = get_global_id(0);
    float sum = 0.0f;
    for (uint x = 0; x < width - 1; x++)
        sum += MAT[y * width + x] * VEC[x];
    OUT[y] = sum;
}
