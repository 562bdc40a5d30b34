/*---
name = "a comma expression and a ternary in subscripts, numbered from 100 by #line"
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
#line 100
__kernel void k(__global const float *src, __global float *out)
{
    __local float tile[16];
    ushort l = (ushort)get_local_id(0);
    uint g = get_global_id(0), t;
    tile[l] = src[g];
    tile[(t = l + 1, t & 15)] += 1.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[l == 0 ? g : g - 1] = tile[l];
}
