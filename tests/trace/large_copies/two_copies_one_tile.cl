/*---
name = "two async copies into one tile, the second waited for, over 32,768 work-items"
family = "custom"
kernel = "two_copies_one_tile"
global = ["32768"]
local = ["16"]
[args.src]
buffer = "float"
count = "32768"
access = "read"
[args.out]
buffer = "float"
count = "32768"
contents = "zeros"
---*/
#define TILE 16

__kernel void two_copies_one_tile(__global const float *src, __global float *out)
{
    __local float tile[TILE];
    const size_t group = get_group_id(0);
    const size_t groups = get_num_groups(0);
    event_t mine = async_work_group_copy(tile, src + group * TILE, TILE, 0);
    event_t next = async_work_group_copy(tile, src + ((group + 1) % groups) * TILE, TILE, 0);
    wait_group_events(1, &next);
    out[get_global_id(0)] = tile[get_local_id(0)];
}
