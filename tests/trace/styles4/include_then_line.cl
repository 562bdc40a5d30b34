/*---
name = "include, then a macro access one past the tile"
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
#include "stencil_common.h"
#line 1 "stencil.cl"
__kernel void k(gin_t src, __global float *out)
{
    __local float t[TS];
    const int l = get_local_id(0);
    t[l] = src[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = AT(t, 0, l + 1) + t[wrap(l - 1, TS)];
}
