/*---
name = "two copies share one event, one wait"
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
    __local float a[16], b[16];
    int l = get_local_id(0), g = get_group_id(0);
    event_t e = async_work_group_copy(a, src + g * 16, 16, 0);
    e = async_work_group_copy(b, src + ((g + 1) % 4) * 16, 16, e);
    wait_group_events(1, &e);
    out[get_global_id(0)] = a[l] + b[l];
}
