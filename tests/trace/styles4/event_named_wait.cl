/*---
name = "two tiles fetched by async copies whose events are named wait and note"
family = "custom"
kernel = "fetch"
global = ["N"]
local = ["16"]
[sizes]
N = 64
[args.src]
buffer = "float"
count = "N"
access = "read"
[args.out]
buffer = "float"
count = "N"
contents = "zeros"
---*/
__kernel void fetch(__global const float *src, __global float *out)
{
    __local float a[16];
    __local float b[16];
    size_t base = get_group_id(0) * 16;
    event_t wait = async_work_group_copy(a, src + base, 16, 0);
    event_t note = async_work_group_copy(b, src + base, 16, 0);
    wait_group_events(1, &wait);
    wait_group_events(1, &note);
    out[get_global_id(0)] = a[get_local_id(0)] + b[15 - get_local_id(0)];
}
