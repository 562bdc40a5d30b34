/*---
name = "Helpers given __local and __global pointers: a neighbour sum that reads one past the tile"
family = "custom"
kernel = "pair_sums"
global = ["N"]
local = ["32"]
[sizes]
N = 64
[args.in]
buffer = "float"
count = "N"
access = "read"
[args.out]
buffer = "float"
count = "N"
contents = "zeros"
access = "write"
writes = "all"
---*/
#line 1
#define LS 32

void stage(__local float *dst, __global const float *src, int l, int g)
{
    dst[l] = src[g];
}

float pair(__local const float *t, int l)
{
    return t[l] + t[l + 1];
}

void put(__global float *dst, int g, float v)
{
    dst[g] = v;
}

__kernel void pair_sums(__global const float *in, __global float *out)
{
    __local float tile[LS + 1];
    int l = get_local_id(0), g = get_global_id(0);
    stage(tile, in, l, g);
    barrier(CLK_LOCAL_MEM_FENCE);
    put(out, g, pair(tile, l));
}
