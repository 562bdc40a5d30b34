/*---
name = "double3 triples copied with vload3 and vstore3"
family = "custom"
kernel = "copy3"
global = ["64"]
local = ["32"]
[args.src]
buffer = "double"
count = "192"
access = "read"
[args.dst]
buffer = "double"
count = "192"
contents = "zeros"
writes = "all"
---*/
#line 1
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void copy3(__global const double *src, __global double *dst)
{
    int i = get_global_id(0);
    vstore3(vload3(i, src) * 2.0, i, dst);
}
