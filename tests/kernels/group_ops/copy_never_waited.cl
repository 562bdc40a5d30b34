/*---
name = "a strided copy out whose event is dropped"
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
    int l = get_local_id(0), g = get_group_id(0);
    tile[l] = 2.0f * src[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    async_work_group_strided_copy(out + g * 16, tile, 16, 1, 0);
}
