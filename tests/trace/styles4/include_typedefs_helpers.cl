/*---
name = "include, macros, several kernels, helper barrier"
family = "custom"
kernel = "second"
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
#include "common.h"
__kernel void first(gin_t src, __global float *out) { out[get_global_id(0)] = src[get_global_id(0)]; }

static void sync_tile(lptr_t t, gin_t g, size_t at)
{
    t[get_local_id(0)] = g[at];
    barrier(CLK_LOCAL_MEM_FENCE);
}

static float sum_row(const __local float *restrict t, uint n)
{
    float s = 0.0f;
#pragma unroll
    for (uint j = 0; j < n; ++j) s += AT(t, 0, j);
    return s;
}

__kernel void second(gin_t restrict src, __global float *restrict out)
{
    __local float tile[TS];
    const size_t i = get_global_id(0);
    sync_tile(tile, src, i);
    float r = sum_row(tile, TS);
    barrier(CLK_LOCAL_MEM_FENCE);
    tile[get_local_id(0)] += r;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[i] = tile[(get_local_id(0) + 1) % TS];
}
