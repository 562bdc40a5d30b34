/*---
name = "Histogram: local atomics per group, then one work-item per bin merges with a plain +="
family = "custom"
kernel = "hist_merge"
global = ["N"]
local = ["32"]
[sizes]
N = 128
BINS = 16
[args.in]
buffer = "int"
count = "N"
contents = "random"
range = [0, 16]
access = "read"
[args.hist]
buffer = "int"
count = "BINS"
contents = "zeros"
access = "readwrite"
[args.lh]
local = "int"
count = "BINS"
---*/
#line 1
#define BINS 16
__kernel void hist_merge(__global const int *in, __global int *hist, __local int *lh)
{
    int l = get_local_id(0);
    if (l < BINS)
        lh[l] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_inc(&lh[in[get_global_id(0)]]);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l < BINS)
        hist[l] += lh[l];
}
