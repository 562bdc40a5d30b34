/*---
name = "copies in, waits, scales, copies back out: correct"
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
    event_t e = async_work_group_copy(tile, src + g * 16, 16, 0);
    wait_group_events(1, &e);
    float v = 2.0f * tile[15 - l];
    barrier(CLK_LOCAL_MEM_FENCE);
    tile[l] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    e = async_work_group_strided_copy(out + g * 16, tile, 16, 1, 0);
    wait_group_events(1, &e);
}
