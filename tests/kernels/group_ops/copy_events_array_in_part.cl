/*---
name = "waits for two of an array of three events"
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
    __local float a[16], b[16], c[16];
    event_t evs[3];
    int l = get_local_id(0), g = get_group_id(0);
    evs[0] = async_work_group_copy(a, src + g * 16, 16, 0);
    evs[1] = async_work_group_copy(b, src + ((g + 1) % 4) * 16, 16, 0);
    evs[2] = async_work_group_copy(c, src + ((g + 2) % 4) * 16, 16, 0);
    wait_group_events(2, evs);
    out[get_global_id(0)] = a[l] + b[l] + c[l];
    wait_group_events(1, &evs[2]);
}
