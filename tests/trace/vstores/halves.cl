/*---
name = "floats stored as halves by vstore_halfN, rounded three ways, through local memory"
family = "custom"
kernel = "halves"
global = ["32"]
local = ["8"]
[args.x]
buffer = "float"
count = "256"
access = "read"
[args.h]
buffer = "half"
count = "256"
contents = "zeros"
access = "write"
writes = "all"
---*/
#line 1
__kernel void halves(__global const float *x, __global half *h)
{
    __local ushort tile[8 * 4]; /* an array of half needs cl_khr_fp16, a pointer does not */
    __local half *staged = (__local half *)tile;
    const int g = get_global_id(0), l = get_local_id(0);
    vstore_half4_rtz(vload4(g, x) * 1000.0f, l, staged);
    barrier(CLK_LOCAL_MEM_FENCE);
    const float4 back = vload_half4((l + 1) % 8, staged);
    vstore_half4(back, 2 * g, h);
    vstorea_half3_rtp(vload3(g, x + 128), 2 * g + 1, h); /* h[8g + 4 .. 8g + 6] */
    vstore_half(x[g] / 3.0f, 8 * g + 7, h);
}
