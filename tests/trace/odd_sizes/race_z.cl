/*---
name = "Each work-item stores its triple, then clears its neighbour's z"
family = "custom"
kernel = "clear_z"
global = ["64"]
local = ["64"]
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
__kernel void clear_z(__global const float *xyz, __global float *packed)
{
    int i = get_global_id(0);
    vstore3(vload3(i, xyz), i, packed);
    if (i > 0)
        packed[3 * (i - 1) + 2] = 0.0f;
}
