/*---
name = "local atomic counter to compact within a group, then one global atomic_add per group"
family = "custom"
kernel = "lc"
global = ["256"]
local = ["64"]
[args.in]
buffer = "int"
count = "256"
access = "read"
[args.out]
buffer = "int"
count = "256"
contents = "zeros"
[args.total]
buffer = "int"
count = "1"
contents = "zeros"
---*/
#line 1
__kernel void lc(__global const int *in, __global int *out, __global int *total)
{
    __local int n;
    __local int base;
    __local int keep[64];
    int l = get_local_id(0);
    if (l == 0)
        n = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    int v = in[get_global_id(0)];
    if (v % 2 == 0)
        keep[atomic_inc(&n)] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0)
        base = atomic_add(total, n);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l < n)
        out[base + l] = keep[l];
}
