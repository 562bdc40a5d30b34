/*---
name = "local tiles written through casts: a float tile by its bits through an int, a uint tile by a negative int, an int tile by its own type"
family = "custom"
kernel = "local_punned"
global = ["8"]
local = ["8"]
[args.f]
buffer = "float"
count = "8"
contents = "zeros"
access = "write"
writes = "all"
[args.u]
buffer = "uint"
count = "8"
contents = "zeros"
access = "write"
writes = "all"
[args.s]
buffer = "int"
count = "8"
contents = "zeros"
access = "write"
writes = "all"
---*/
#define TILE 8

__kernel void local_punned(__global float *f, __global uint *u, __global int *s)
{
    __local float bits_tile[TILE];
    __local uint wrapped[TILE];
    __local int same[TILE];
    const int i = get_local_id(0);

    *(__local int *)&bits_tile[i] = 0x3fc00000 + i;   /* 1.5 and its next floats */
    ((__local int *)wrapped)[i] = -83 - i;            /* 4294967213 - i as a uint */
    same[i] = -5 * i - 1;
    barrier(CLK_LOCAL_MEM_FENCE);

    f[i] = bits_tile[TILE - 1 - i];
    u[i] = wrapped[TILE - 1 - i];
    s[i] = same[TILE - 1 - i];
}
