/*---
name = "sum reduction in local memory"
family = "custom"
kernel = "reduce"
global = ["1024"]
local = ["128"]
[args.in]
buffer = "float"
count = "1024"
access = "read"
[args.out]
buffer = "float"
count = "8"
contents = "zeros"
writes = "all"
[args.scratch]
local = "float"
count = "L0"
[reference]
numpy = "in.reshape(8, 128).sum(axis=1)"
terms = "128"
---*/
#line 1
__kernel void reduce(__global const float *in, __global float *out, __local float *scratch)
{
    unsigned int lid = get_local_id(0);
    scratch[lid] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (unsigned int s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (lid < s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        out[get_group_id(0)] = scratch[0];
}
