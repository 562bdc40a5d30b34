/*---
name = "copies chained on one event that starts as 0, another event waited for instead"
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
    event_t chain = 0;
    for (int q = 0; q < 4; q++)
        chain = async_work_group_copy(a + q * 4, src + g + q * 4, 4, chain);
    event_t other = async_work_group_copy(b, src + g, 16, 0);
    wait_group_events(1, &other);
    out[g + l] = a[l] + b[l];
}
