/*---
name = "A work-item per row, its index swapped"
family = "matvec"
kernel = "rows_swapped"
args = ["MAT", "VEC", "WIDTH", "HEIGHT", "OUT"]
global = ["HEIGHT"]
local = ["4"]
[about]
source = "the trace diff's test kernels"
text = "Reads MAT by column where it means by row (a swapped index)."
---*/
__kernel void rows_swapped(const __global float* MAT, const __global float* VEC, uint width,
                           uint height, __global float* OUT)
{
    uint y = get_global_id(0);
    float sum = 0.0f;
    // the row and the column swapped:
    for (uint x = 0; x < width; x++)
        sum += MAT[x * width + y] * VEC[x];
    OUT[y] = sum;
}
