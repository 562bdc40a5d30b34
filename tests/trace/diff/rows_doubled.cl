/*---
name = "A work-item per row, twice the sum"
family = "matvec"
kernel = "rows_doubled"
args = ["MAT", "VEC", "WIDTH", "HEIGHT", "OUT"]
global = ["HEIGHT"]
local = ["4"]
[about]
source = "the trace diff's test kernels"
text = "Makes every access of rows.cl but writes twice the sum."
---*/
__kernel void rows_doubled(const __global float* MAT, const __global float* VEC, uint width,
                           uint height, __global float* OUT)
{
    uint y = get_global_id(0);
    float sum = 0.0f;
    for (uint x = 0; x < width; x++)
        sum += MAT[y * width + x] * VEC[x];
    sum *= 2.0f;
    OUT[y] = sum;
}
