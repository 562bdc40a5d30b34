/*---
name = "two copies into one tile, neither waited for"
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
    int g = get_group_id(0);
    event_t first = async_work_group_copy(tile, src + g * 16, 16, 0);
    event_t second = async_work_group_copy(tile, src + ((g + 1) % 4) * 16, 16, 0);
    out[get_global_id(0)] = 1.0f;
}
