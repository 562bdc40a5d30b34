/*---
name = "A kernel numbered by a #line directive halfway down, reading one past its local tile"
family = "custom"
kernel = "shifted"
global = ["32"]
local = ["16"]
[args.in]
buffer = "float"
count = "32"
access = "read"
[args.out]
buffer = "float"
count = "32"
contents = "zeros"
access = "write"
---*/
#line 1
#define LS 16
float first(__global const float *p) { return p[0]; }
#line 200
__kernel void shifted(__global const float *in, __global float *out)
{
    __local float t[LS];
    int l = get_local_id(0), g = get_global_id(0);
    t[l] = in[g];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[g] = t[l + 1] + first(in + 31 - g / 2);
}
