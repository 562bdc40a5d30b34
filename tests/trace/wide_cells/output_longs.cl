/*---
name = "An accumulator of longs the host never set: sums[i] += counts[i]"
family = "custom"
kernel = "add_counts"
global = ["N"]
local = ["8"]
[sizes]
N = 32
[args.counts]
buffer = "long"
count = "N"
access = "read"
[args.sums]
buffer = "long"
count = "N"
contents = "noinit"
access = "readwrite"
---*/
#line 1
__kernel void add_counts(__global const long *counts, __global long *sums)
{
    int i = get_global_id(0);
    sums[i] += counts[i];
}
