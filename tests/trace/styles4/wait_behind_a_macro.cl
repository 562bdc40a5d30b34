/*---
name = "copies and a wait behind hygienic macros (&(e)), the second copy never waited for"
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
#define COPY_IN(dst, off) (async_work_group_copy((dst), src + (off), 16, 0))
#define WAIT(e) wait_group_events(1, &(e))
__kernel void k(__global const float *src, __global float *out)
{
    __local float a[16], b[16];
    const size_t g = get_group_id(0) * 16, l = get_local_id(0);
    event_t ea = COPY_IN(a, g);
    event_t eb = COPY_IN(b, g);
    WAIT(ea);
    out[g + l] = a[l] + b[l];
}
