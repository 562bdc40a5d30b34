/*---
name = "an event copied to another variable and waited for through it, the other copy never"
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
__kernel void k(__global const float *src, __global float *out)
{
    __local float a[16], b[16];
    const size_t g = get_group_id(0) * 16, l = get_local_id(0);
    event_t ea = async_work_group_copy(a, src + g, 16, 0);
    event_t eb = async_work_group_copy(b, src + g, 16, 0);
    event_t first = ea;
    wait_group_events(1, &first);
    out[g + l] = a[l] + b[l];
}
