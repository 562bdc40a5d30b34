/*---
name = "locals named next, prev, count, index, group, result, _float, tr_acc"
family = "custom"
kernel = "k"
global = ["N"]
local = ["16"]
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
__kernel void k(__global const float *restrict src, __global float *restrict out)
{
    __local float tile[16];
    float _float[4];
    float tr_acc[2];
    int next = get_local_id(0), prev = (next + 15) % 16, count = 16, index = get_global_id(0);
    int group = get_group_id(0);
    float result = 0.0f;
    tile[next] = src[index];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = 0; i < 4; i++) _float[i] = tile[(next + i) % count];
    tr_acc[0] = _float[0] + _float[1];
    tr_acc[1] = _float[2] + _float[3];
    result = tr_acc[0] + tr_acc[1] + tile[prev] * (float)group;
    out[index] = result;
}
