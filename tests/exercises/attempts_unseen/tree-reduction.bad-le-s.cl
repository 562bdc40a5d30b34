/*---
name = "Exercise: a tree reduction without divergence"
family = "custom"
kernel = "group_sums"
global = ["N"]
local = ["256"]
[sizes]
N = 1024
[args.values]
buffer = "float"
count = "N"
access = "read"
[args.sums]
buffer = "float"
count = "N / L0"
access = "write"
result = true
[args.scratch]
local = "float"
count = "L0"
[reference]
numpy = "sum(reshape(values, (N // L0, L0)), axis=1)"
terms = "L0"
---*/
__kernel void group_sums(__global const float* values, __global float* sums,
                         __local float* scratch)
{
    int lid = get_local_id(0);
    int items = get_local_size(0);
    scratch[lid] = values[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = items / 2; s > 0; s /= 2) {
        if (lid <= s)
            scratch[lid] += scratch[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        sums[get_group_id(0)] = scratch[0];
}
