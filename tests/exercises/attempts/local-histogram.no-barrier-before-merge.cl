/*---
name = "Exercise: a histogram in local bins"
family = "custom"
kernel = "histogram"
global = ["VALUES"]
local = ["64"]
[sizes]
VALUES = 1024
BINS = 16
[args.values]
buffer = "int"
count = "VALUES"
access = "read"
range = [0, 16]
[args.hist]
buffer = "int"
count = "BINS"
contents = "zeros"
result = true
[args.bins]
scalar = "int"
value = "BINS"
[args.local_bins]
local = "int"
count = "BINS"
[reference]
numpy = "sum(reshape(values, (VALUES, 1)) == reshape(arange(BINS), (1, BINS)), axis=0)"
---*/
/* hist[b] counts the values equal to b. Each work-group counts its own values in local
   bins first, then adds each bin to hist once: BINS global additions per group instead of
   one per value. */
__kernel void histogram(__global const int* values, __global int* hist, int bins,
                        __local int* local_bins)
{
    int lid = get_local_id(0);
    int items = get_local_size(0);
    for (int b = lid; b < bins; b += items)       /* 1. clear the group's bins */
        local_bins[b] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_inc(&local_bins[values[get_global_id(0)]]);   /* 2. count one value */

    for (int b = lid; b < bins; b += items)       /* 3. add the group's bins to hist */
        atomic_add(&hist[b], local_bins[b]);
}
