/*---
name = "an output of padded structs, written by member and read back whole"
family = "custom"
kernel = "pk"
global = ["64"]
local = ["32"]
[args.x]
buffer = "float4"
count = "64"
access = "read"
[args.recs]
buffer = "float4"
count = "128"
contents = "noinit"
[args.out]
buffer = "float"
count = "64"
contents = "zeros"
writes = "all"
---*/
#line 1
typedef struct { float4 p; int id; } Rec;

__kernel void pk(__global const float4 *x, __global Rec *recs, __global float *out)
{
    int i = get_global_id(0);
    recs[i].p = x[i];
    recs[i].id = i;
    Rec r = recs[i];
    out[i] = r.p.x + (float)r.id;
}
