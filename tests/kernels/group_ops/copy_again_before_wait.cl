/*---
name = "one copy call in a loop into the same tile, the event shared, waited after the loop"
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
#define ROWS 2
__kernel void k(__global const float* src, __global float* out)
{
    __local float tile[16];
    int l = get_local_id(0), g = get_group_id(0);
    event_t e = 0;
    for (int r = 0; r < ROWS; r++)
        e = async_work_group_copy(tile, src + ((g + r) % 4) * 16, 16, e);
    wait_group_events(1, &e);
    out[get_global_id(0)] = tile[l];
}
