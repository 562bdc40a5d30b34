/*---
name = "a reduction whose barrier leads each step, so its last step is read unordered"
family = "custom"
kernel = "k"
global = ["N"]
local = ["16"]
[sizes]
N = 64
[args.src]
buffer = "float"
count = "N"
access = "read"
[args.out]
buffer = "float"
count = "N"
contents = "zeros"
---*/
__kernel void k(__global const float *src, __global float *out)
{
    __local float t[16];
    int l = get_local_id(0);
    t[l] = src[get_global_id(0)];
    for (int s = 8; s > 0; s >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l < s)
            t[l] += t[l + s];
    }
    out[get_global_id(0)] = src[get_global_id(0)] / t[0];
}
