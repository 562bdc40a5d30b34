/*---
name = "async copies whose events a comment names as if declared: event_t evs[ncopy]"
family = "custom"
kernel = "k"
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
#define NCOPY 2
__kernel void k(__global const float *src, __global float *out)
{
    // one event_t per copy: event_t evs[ncopy] would be too big for the lanes
    __local float a[16], b[16], c[16];
    const size_t g = get_group_id(0) * 16;
    event_t first = async_work_group_copy(a, src + g, 8, 0), evs[NCOPY];
    first = async_work_group_copy(a + 8, src + g + 8, 8, first);
    evs[0] = async_work_group_copy(b, src + g, 16, (event_t)0);
    evs[1] = async_work_group_copy(c, src + g, 16, 0);
    wait_group_events(1, &first);
    wait_group_events(1, evs + 1);
    wait_group_events(1, &evs[0]);
    const size_t l = get_local_id(0);
    out[g + l] = a[l] + b[l] + c[15 - l];
}
