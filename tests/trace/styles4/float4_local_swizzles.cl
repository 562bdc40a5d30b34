/*---
name = "float4 local tiles, vload4 on local, mad24 and select in subscripts"
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
    __local float4 t4[4];
    __local float flat[16];
    const uint l = get_local_id(0), g = get_group_id(0);
    flat[l] = src[mad24(g, 16u, l)];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l < 4) t4[l] = vload4(l, flat);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l < 4) t4[l].s13 += t4[3 - l].s02;
    barrier(CLK_LOCAL_MEM_FENCE);
    float4 w = t4[l >> 2];
    float x = ((float *)&w)[l & 3];
    int4 pick = (int4)(0, 1, 2, 3);
    out[mul24(g, 16u) + select(l, 15u - l, (uint)(l > 7))] = x + (float)pick.w;
    if (l == 0) vstore4(t4[0], 0, flat);
}
