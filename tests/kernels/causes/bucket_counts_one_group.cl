/*---
name = "Keys counted per bucket with a plain increment, in one work-group"
family = "custom"
kernel = "bucket_counts"
global = ["64"]
local = ["64"]
[args.keys]
buffer = "uint"
count = "256"
contents = "iota"
access = "read"
[args.counts]
buffer = "uint"
count = "16"
contents = "zeros"
access = "readwrite"
[args.n]
scalar = "int"
value = "256"
---*/
#line 1
#define BUCKETS 16

/* Keys counted per hash bucket, a grid-stride loop over the keys. */
__kernel void bucket_counts(__global const uint *keys, __global uint *counts, const int n)
{
    for (int i = get_global_id(0); i < n; i += get_global_size(0)) {
        const uint bucket = keys[i] & (BUCKETS - 1);
        counts[bucket]++;
    }
}
