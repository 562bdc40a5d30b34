/*---
name = "async copies in parentheses (one by a hygienic macro), only the first waited for"
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
#define FETCH(dst, off) (async_work_group_copy((dst), src + (off), 16, 0))
__kernel void k(__global const float *src, __global float *out)
{
    __local float a[16], b[16];
    const size_t g = get_group_id(0) * 16, l = get_local_id(0);
    event_t ea = (async_work_group_copy(a, src + g, 16, 0));
    event_t eb = FETCH(b, g);
    wait_group_events(1, &ea);
    out[g + l] = a[l] + b[15 - l];
}
