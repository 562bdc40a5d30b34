/*---
name = "Two work-items per row"
family = "matvec"
kernel = "rows_halves"
args = ["MAT", "VEC", "WIDTH", "HEIGHT", "OUT"]
global = ["HEIGHT * 2"]
local = ["4"]
[about]
source = "the trace diff's test kernels"
text = "Launches twice as many work-items as rows.cl: another NDRange."
---*/
__kernel void rows_halves(const __global float* MAT, const __global float* VEC, uint width,
                          uint height, __global float* OUT)
{
    uint y = get_global_id(0) / 2;
    if (get_global_id(0) % 2 == 0) {
        float sum = 0.0f;
        for (uint x = 0; x < width; x++)
            sum += MAT[y * width + x] * VEC[x];
        OUT[y] = sum;
    }
}
