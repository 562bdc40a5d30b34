/*---
name = "Rows reversed through a tile filled only in part"
family = "custom"
kernel = "reversed_rows"
global = ["ROWS * COLS"]
local = ["COLS"]
[sizes]
ROWS = 6
COLS = 8
[args.x]
buffer = "float"
count = "ROWS * COLS"
access = "read"
shape = ["ROWS", "COLS"]
[args.y]
buffer = "float"
count = "ROWS * COLS"
result = true
shape = ["ROWS", "COLS"]
[args.rows]
scalar = "int"
value = "ROWS"
[args.cols]
scalar = "int"
value = "COLS"
[args.t]
local = "float"
count = "COLS"
[reference]
numpy = "flip(x, axis=1)"
[about]
bug = "the tile is filled while c < rows: its last COLS - ROWS elements are read unwritten"
---*/
__kernel void reversed_rows(__global const float* x, __global float* y, int rows, int cols,
                            __local float* t)
{
    const int c = get_local_id(0);
    const int r = get_group_id(0);
    if (c < rows)
        t[c] = x[r * cols + c];
    barrier(CLK_LOCAL_MEM_FENCE);
    y[r * cols + c] = t[cols - 1 - c];
}
