/*---
name = "histogram in local memory, merged with atomic_add"
family = "custom"
kernel = "hist"
global = ["4096"]
local = ["256"]
[args.data]
buffer = "uchar"
count = "4096"
access = "read"
[args.bins]
buffer = "uint"
count = "256"
contents = "zeros"
---*/
#line 1
#define NBINS 256
__kernel void hist(__global const uchar *data, __global uint *bins)
{
    __local uint h[NBINS];
    int l = get_local_id(0);
    h[l] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_inc(&h[data[get_global_id(0)]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_add(&bins[l], h[l]);
}
