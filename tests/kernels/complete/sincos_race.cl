/*---
name = "sincos stores its cosine into one element from every work-item"
family = "custom"
kernel = "k"
global = ["64"]
local = ["16"]
[args.x]
buffer = "float"
count = "64"
access = "read"
[args.c]
buffer = "float"
count = "64"
contents = "zeros"
[args.s]
buffer = "float"
count = "64"
contents = "zeros"
---*/
#line 1
__kernel void k(__global const float* x, __global float* c, __global float* s)
{
    int i = get_global_id(0);
    s[i] = sincos(x[i], &c[0]);
}
