/*---
name = "a private array of pointers to two local tiles, one read past its end"
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
__kernel void k(__global const float *src, __global float *out)
{
    __local float a[16], b[16];
    __local float *bufs[2] = { a, b };
    __local int hits[4];
    const int l = get_local_id(0), i = get_global_id(0);
    if (l < 4) hits[l] = 0;
    (l & 1 ? a : b)[l] = src[i];
    (l & 1 ? b : a)[l] = -src[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    float v;
    switch (l & 3) {
    case 0: v = *(bufs[0] + l); break;
    case 1: v = bufs[1][l + 16]; break;
    case 2: { int j = 15 - l; v = a[j] + b[j]; } break;
    default: v = 0.0f;
    }
    atomic_inc(&hits[l & 3]);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int j = 0, k = 15; j < k; j++, k--) v += a[j] * b[k];
    out[i] = v + (float)hits[l & 3];
}
