/*---
name = "copies chained behind a macro that wraps the event it is given"
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
#define COPY_AFTER(dst, off, e) async_work_group_copy((dst), src + (off), 8, (e))
__kernel void k(__global const float *src, __global float *out)
{
    __local float a[16], b[16];
    const size_t g = get_group_id(0) * 16, l = get_local_id(0);
    event_t ea = COPY_AFTER(a, g, 0);
    ea = COPY_AFTER(a + 8, g + 8, ea);
    event_t eb = COPY_AFTER(b, g, 0);
    eb = COPY_AFTER(b + 8, g + 8, eb);
    wait_group_events(1, &ea);
    out[g + l] = a[l] + b[l];
}
