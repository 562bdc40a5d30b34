/*---
name = "Backward differences with a size_t index and a uint index: both wrap below zero"
family = "custom"
kernel = "diffs"
global = ["32"]
local = ["16"]
[args.in]
buffer = "float"
count = "32"
access = "read"
[args.d1]
buffer = "float"
count = "32"
contents = "zeros"
access = "write"
[args.d2]
buffer = "float"
count = "32"
contents = "zeros"
access = "write"
---*/
#line 1
__kernel void diffs(__global const float *in, __global float *d1, __global float *d2)
{
    size_t i = get_global_id(0);
    uint u = (uint)get_global_id(0);
    d1[i] = in[i] - in[i - 1];
    d2[u] = in[u] - in[u - 1u];
}
