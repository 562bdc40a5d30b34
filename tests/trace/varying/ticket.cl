/*---
name = "Work handed out by a ticket: which work-items do the extra reads is decided by who draws first"
family = "custom"
kernel = "ticket"
global = ["1024"]
local = ["16"]
[args.x]
buffer = "float"
count = "1024"
access = "read"
[args.next]
buffer = "uint"
count = "1"
contents = "zeros"
access = "readwrite"
[args.out]
buffer = "float"
count = "1024"
access = "write"
writes = "all"
---*/
__kernel void ticket(__global const float *x, volatile __global uint *next, __global float *out)
{
    size_t i = get_global_id(0);
    uint t = atomic_inc(next);
    float s = 0.0f;
    for (uint k = 0; k < t % 7; k++)
        s += x[(i + k) % 1024];
    out[i] = s;
}
