/*---
name = "1-D stencil of radius 2 whose right halo is never loaded"
family = "custom"
kernel = "st5"
global = ["256"]
local = ["64"]
[args.in]
buffer = "float"
count = "260"
access = "read"
[args.out]
buffer = "float"
count = "256"
contents = "zeros"
---*/
#line 1
#define R 2
#define LS 64
__kernel void st5(__global const float *in, __global float *out)
{
    __local float t[LS + 2 * R];
    int g = get_global_id(0), l = get_local_id(0);
    t[l + R] = in[g + R];
    if (l < R)
        t[l] = in[g];
    barrier(CLK_LOCAL_MEM_FENCE);
    float s = 0.0f;
    for (int k = -R; k <= R; k++)
        s += t[l + R + k];
    out[g] = s;
}
