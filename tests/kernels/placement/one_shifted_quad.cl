/*---
name = "Every work-item reads the same vector one element past its alignment"
family = "custom"
kernel = "one_shifted_quad"
global = ["N"]
local = ["64"]
[sizes]
N = 512
[args.x]
buffer = "float"
count = "N"
access = "read"
[args.y]
buffer = "float"
count = "N"
result = true
[about]
bug = "a float4 read through a pointer one float off a 16-byte boundary, by every work-item"
---*/
__kernel void one_shifted_quad(__global const float* x, __global float* y)
{
    const int gid = get_global_id(0);
    const float4 v = *(__global const float4*)&x[1];
    y[gid] = v.x + x[gid];
}
