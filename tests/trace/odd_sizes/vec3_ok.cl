/*---
name = "Packed xyz triples read with vload3 and written back swizzled with vstore3"
family = "custom"
kernel = "swap"
global = ["64"]
local = ["32"]
[args.xyz]
buffer = "float"
count = "192"
access = "read"
[args.packed]
buffer = "float"
count = "192"
contents = "zeros"
writes = "all"
---*/
#line 1
__kernel void swap(__global const float *xyz, __global float *packed)
{
    int i = get_global_id(0);
    float3 p = vload3(i, xyz);
    vstore3(p.zyx, i, packed);
}
