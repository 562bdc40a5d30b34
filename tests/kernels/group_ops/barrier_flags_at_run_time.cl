/*---
name = "barrier flags computed at run time, the same for all"
family = "custom"
kernel = "k"
global = ["64"]
local = ["16"]
[args.src]
buffer = "float"
count = "64"
access = "read"
[args.out]
buffer = "float"
count = "64"
contents = "zeros"
---*/
#line 1
__kernel void k(__global const float* src, __global float* out)
{
    __local float tile[16];
    int l = get_local_id(0);
    tile[l] = src[get_global_id(0)];
    barrier(get_local_size(0) > 1 ? CLK_LOCAL_MEM_FENCE : CLK_GLOBAL_MEM_FENCE);
    out[get_global_id(0)] = tile[15 - l];
}
