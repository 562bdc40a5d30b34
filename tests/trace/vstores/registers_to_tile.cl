/*---
name = "a tile of float4 sums kept in registers, stored into local memory by vstore4 and read back across the group after a barrier"
family = "custom"
kernel = "registers_to_tile"
global = ["64"]
local = ["16"]
[args.x]
buffer = "float"
count = "512"
access = "read"
[args.out]
buffer = "float"
count = "256"
contents = "zeros"
access = "write"
writes = "all"
[defines]
RACY = 0
[allowed]
RACY = [0, 1]
---*/
#line 1
#ifndef RACY
#define RACY 0 /* 1: no barrier, and a row of the tile that nobody stores is read */
#endif
#define ROWS (16 + RACY)

__kernel void registers_to_tile(__global const float *x, __global float *out)
{
    __local float tile[ROWS * 4];
    const int l = get_local_id(0);
    const int g = get_global_id(0);
    float4 acc = (float4)(0.0f);
    for (int k = 0; k < 2; k++)
        acc += (float4)(x[8 * g + k], x[8 * g + 2 + k], x[8 * g + 4 + k], x[8 * g + 6 + k]);
    vstore4(acc * 0.5f + (float4)(l), l, tile);
#if !RACY
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
    /* Each work-item reads a diagonal of the floats its neighbours stored. */
    for (int k = 0; k < 4; k++)
        out[4 * g + k] = tile[4 * ((l + k) % ROWS) + k];
}
