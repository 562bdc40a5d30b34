/*---
name = "a 2-D copy launched over more work-items than elements"
family = "custom"
kernel = "copy2d"
global = ["N + 8", "M + 8"]
local = ["8", "8"]
[sizes]
M = 24
N = 40
[args.M]
scalar = "int"
value = "M"
[args.N]
scalar = "int"
value = "N"
[args.src]
buffer = "float"
count = "M * N"
access = "read"
[args.dst]
buffer = "float"
count = "M * N"
contents = "zeros"
---*/
#line 1
__kernel void copy2d(int M, int N, __global const float* src, __global float* dst)
{
    int col = get_global_id(0), row = get_global_id(1);
    dst[row * N + col] = 2.0f * src[row * N + col];
}
