/*---
name = "one tile copied out twice by async copies, into this group's block and a copy of it, over 32,768 work-items"
family = "custom"
kernel = "two_copies_out"
global = ["32768"]
local = ["16"]
[args.src]
buffer = "float"
count = "32768"
access = "read"
[args.out]
buffer = "float"
count = "65536"
contents = "zeros"
---*/
__kernel void two_copies_out(__global const float *src, __global float *out)
{
    __local float tile[16];
    const size_t group = get_group_id(0);
    tile[get_local_id(0)] = 3.0f * src[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    event_t kept = async_work_group_copy(out + group * 16, tile, 16, 0);
    event_t spare = async_work_group_copy(out + 32768 + group * 16, tile, 16, 0);
    wait_group_events(1, &kept);
    wait_group_events(1, &spare);
}
