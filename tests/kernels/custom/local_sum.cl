/*---
name = "Work-group sums through a host-sized local buffer"
family = "custom"
kernel = "group_sums"
global = ["N"]
local = ["64"]
[sizes]
N = 4096
[args.values]
buffer = "int"
count = "N"
access = "read"
[args.sums]
buffer = "int"
count = "N / L0"
result = true
[args.scratch]
local = "int"
count = "L0"
[reference]
numpy = "sum(reshape(values, (N // L0, L0)), axis=1)"
terms = "L0"
---*/
__kernel void group_sums(__global const int* values, __global int* sums, __local int* scratch)
{
    int lid = get_local_id(0);
    scratch[lid] = values[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int stride = get_local_size(0) / 2; stride > 0; stride /= 2) {
        if (lid < stride)
            scratch[lid] += scratch[lid + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        sums[get_group_id(0)] = scratch[0];
}
