/*---
name = "a histogram counted atomically into local bins, then added to global ones"
family = "custom"
kernel = "k"
global = ["N"]
local = ["32"]
[sizes]
N = 128
[args.data]
buffer = "int"
count = "N"
access = "read"
contents = "random"
[args.bins]
buffer = "int"
count = "8"
contents = "zeros"
---*/
__kernel void k(__global const int *data, __global int *bins)
{
    __local int local_bins[8];
    int l = get_local_id(0);
    if (l < 8)
        local_bins[l] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    int v = data[get_global_id(0)] & 7;
    atomic_inc(&local_bins[v]);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l < 8)
        atomic_add(&bins[l], local_bins[l]);
}
