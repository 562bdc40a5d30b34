/*---
name = "double2 pairs loaded and stored by assignment through a cast"
family = "custom"
kernel = "doubles"
global = ["32"]
local = ["8"]
[args.src]
buffer = "double"
count = "64"
access = "read"
[args.dst]
buffer = "double"
count = "64"
contents = "zeros"
access = "write"
writes = "all"
---*/
#line 1
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
__kernel void doubles(__global const double *src, __global double *dst)
{
    const int g = get_global_id(0);
    const double2 v = ((__global const double2 *)src)[31 - g];
    ((__global double2 *)dst)[g] = (double2)(v.y * 0.5, v.x - (double)g);
}
