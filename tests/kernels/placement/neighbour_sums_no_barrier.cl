/*---
name = "Neighbour sums, the barrier left out"
family = "custom"
kernel = "neighbour_sums"
global = ["N"]
local = ["16"]
[sizes]
N = 64
[args.x]
buffer = "float"
count = "N"
access = "read"
[args.y]
buffer = "float"
count = "N"
result = true
[args.t]
local = "float"
count = "16"
---*/
__kernel void neighbour_sums(__global const float* x, __global float* y, __local float* t)
{
    const int l = get_local_id(0);
    t[l] = x[get_global_id(0)];
    /* the barrier is missing here */
    y[get_global_id(0)] = t[l] + t[(l + 1) % 16];
}
