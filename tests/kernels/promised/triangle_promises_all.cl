/*---
name = "A lower triangle whose header promises every element"
family = "custom"
kernel = "lower"
global = ["N", "N"]
local = ["8", "8"]
[sizes]
N = 16
[args.a]
buffer = "float"
count = "N * N"
access = "read"
shape = ["N", "N"]
[args.low]
buffer = "float"
count = "N * N"
contents = "zeros"
shape = ["N", "N"]
writes = "all"
[reference.numpy]
low = "tril(a)"
---*/
#line 1
__kernel void lower(__global const float* a, __global float* low)
{
    int x = get_global_id(0), y = get_global_id(1), n = get_global_size(0);
    if (x <= y)
        low[y * n + x] = a[y * n + x];
}
