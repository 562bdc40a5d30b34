/*---
name = "Transpose through a 32x32 local tile, padded by one column where PADDED is 1"
family = "custom"
kernel = "transpose_tile"
global = ["W", "H / 4"]
local = ["32", "8"]
[sizes]
W = 32
H = 32
[defines]
PADDED = 0
[args.in]
buffer = "float"
count = "W * H"
access = "read"
[args.out]
buffer = "float"
count = "W * H"
contents = "zeros"
access = "write"
writes = "all"
[args.W]
scalar = "int"
value = "W"
[args.H]
scalar = "int"
value = "H"
---*/
#line 1
#define TILE 32
#define ROWS 8
#if PADDED
#define COLS (TILE + 1)
#else
#define COLS TILE
#endif
__kernel void transpose_tile(__global const float *in, __global float *out, int W, int H)
{
    __local float tile[TILE][COLS];
    int lx = get_local_id(0), ly = get_local_id(1);
    int x = get_group_id(0) * TILE + lx;
    int y = get_group_id(1) * TILE + ly;
    for (int j = 0; j < TILE; j += ROWS)
        tile[ly + j][lx] = in[(y + j) * W + x];
    barrier(CLK_LOCAL_MEM_FENCE);
    x = get_group_id(1) * TILE + lx;
    y = get_group_id(0) * TILE + ly;
    for (int j = 0; j < TILE; j += ROWS)
        out[(y + j) * H + x] = tile[lx][ly + j];
}
