/*---
name = "a fence after both accesses orders nothing between them"
kernel = "late"
family = "custom"
global = ["64"]
local = ["16"]
[args.src]
buffer = "float"
count = "64"
access = "read"
[args.dst]
buffer = "float"
count = "64"
contents = "zeros"
---*/
#line 1
__kernel void late(__global const float* src, __global float* dst)
{
    __local float tile[16];
    int l = get_local_id(0), i = get_global_id(0);
    tile[l] = src[i];
    dst[i] = tile[(l + 1) % 16];
    mem_fence(CLK_LOCAL_MEM_FENCE);
}
