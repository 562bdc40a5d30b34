/*---
name = "A work-group per row, tree reduction"
family = "matvec"
kernel = "reduce"
args = ["MAT", "VEC", "WIDTH", "HEIGHT", "OUT", "SCRATCH"]
global = ["HEIGHT * 8"]
local = ["8"]
[about]
source = "the trace diff's test kernels"
text = "Eight work-items share a row and add their sums in a tree, a barrier after each step."
---*/
__kernel void reduce(const __global float* MAT, const __global float* VEC, uint width,
                     uint height, __global float* OUT, __local float* part)
{
    uint y = get_group_id(0), l = get_local_id(0);
    float sum = 0.0f;
    for (uint x = l; x < width; x += 8)
        sum += MAT[y * width + x] * VEC[x];
    part[l] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = 4; s > 0; s /= 2) {
        if (l < s)
            part[l] += part[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        OUT[y] = part[0];
}
