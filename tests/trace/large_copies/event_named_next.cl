/*---
name = "a tile fetched by an async copy whose event is named next, waited for"
family = "custom"
kernel = "prefetch_next"
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
__kernel void prefetch_next(__global const float *src, __global float *out)
{
    __local float tile[16];
    event_t next = async_work_group_copy(tile, src + get_group_id(0) * 16, 16, 0);
    wait_group_events(1, &next);
    out[get_global_id(0)] = 2.0f * tile[get_local_id(0)];
}
