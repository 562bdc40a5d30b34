/*---
name = "Triples staged in a local tile with vstore3, read back reversed with vload3"
family = "custom"
kernel = "reverse"
global = ["64"]
local = ["32"]
[args.xyz]
buffer = "float"
count = "192"
access = "read"
[args.out]
buffer = "float"
count = "192"
contents = "zeros"
writes = "all"
---*/
#line 1
__kernel void reverse(__global const float *xyz, __global float *out)
{
    __local float tile[3 * 32];
    int i = get_global_id(0);
    int l = get_local_id(0);
    vstore3(vload3(i, xyz), l, tile);
    barrier(CLK_LOCAL_MEM_FENCE);
    vstore3(vload3(31 - l, tile), i, out);
}
