/*---
name = "Scale by a factor with no guard for the last group's tail"
family = "custom"
kernel = "scale"
global = ["N"]
local = ["32"]
[sizes]
N = 100
[args.x]
buffer = "float"
count = "N"
access = "read"
[args.y]
buffer = "float"
count = "N"
contents = "zeros"
access = "write"
writes = "all"
[args.a]
scalar = "float"
value = 3.0
---*/
#line 1
__kernel void scale(__global const float *x, __global float *y, const float a)
{
    const size_t i = get_global_id(0);
    y[i] = a * x[i];
}
