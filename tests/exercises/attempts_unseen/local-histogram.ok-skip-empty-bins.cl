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
#define CLEAR_AND_WAIT(b, n, lid, items) \
    for (int j = (lid); j < (n); j += (items)) (b)[j] = 0; \
    barrier(CLK_LOCAL_MEM_FENCE)

__kernel void histogram(__global const int* values, __global int* hist, int bins,
                        __local int* local_bins)
{
    int lid = get_local_id(0);
    int items = get_local_size(0);
    CLEAR_AND_WAIT(local_bins, bins, lid, items);
    atomic_inc(local_bins + values[get_global_id(0)]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int b = lid; b < bins; b += items) {
        int count = local_bins[b];
        if (count != 0)
            atomic_add(&hist[b], count);
    }
}
