/*---
name = "scan with barriers in a helper called in a loop, a group-uniform early return, a private element set by half"
family = "custom"
kernel = "k"
global = ["N"]
local = ["32"]
[sizes]
N = 64
[args.src]
buffer = "float"
count = "N"
access = "read"
[args.out]
buffer = "float"
count = "N"
contents = "zeros"
---*/
static void step_scan(__local float *restrict t, uint l, uint off)
{
    float add = l >= off ? t[l - off] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    t[l] += add;
    barrier(CLK_LOCAL_MEM_FENCE);
}

__kernel void k(__global const float *restrict src, __global float *restrict out)
{
    __local float t[32];
    const uint l = get_local_id(0), g = get_group_id(0);
    if (g == get_num_groups(0) - 1 && get_num_groups(0) > 1) return; /* the last group idles */
    t[l] = src[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint off = 1; off < get_local_size(0); off <<= 1)
        step_scan(t, l, off);
    float priv[2];
    if (l & 1) priv[0] = t[l];
    out[get_global_id(0)] = priv[0];
}
