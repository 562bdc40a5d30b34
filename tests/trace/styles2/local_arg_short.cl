/*---
name = "A __local scratch argument the host sizes at half the group, indexed by the whole group"
family = "custom"
kernel = "halves"
global = ["64"]
local = ["32"]
[args.in]
buffer = "float"
count = "64"
access = "read"
[args.out]
buffer = "float"
count = "64"
contents = "zeros"
access = "write"
writes = "all"
[args.scratch]
local = "float"
count = "L0 / 2"
---*/
#line 1
__kernel void halves(__global const float *in, __global float *out, __local float *scratch)
{
    int l = get_local_id(0), g = get_global_id(0);
    scratch[l] = in[g];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[g] = scratch[get_local_size(0) - 1 - l];
}
