/*---
name = "float4 stores of 4 values each over a length that is not a multiple of 4"
family = "custom"
kernel = "scale4"
global = ["N / 4 + 1"]
local = ["1"]
[sizes]
N = 30
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
---*/
#line 1
__kernel void scale4(__global const float *x, __global float *y)
{
    int i = get_global_id(0);
    float4 v = vload4(i, x);
    vstore4(v * 2.0f, i, y);
}
