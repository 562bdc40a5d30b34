/*---
name = "Exercise: the transposed tile and its padding"
family = "custom"
kernel = "transpose"
global = ["COLS", "ROWS"]
local = ["16", "16"]
[sizes]
ROWS = 32
COLS = 48
[args.in]
buffer = "float"
count = "ROWS * COLS"
access = "read"
shape = ["ROWS", "COLS"]
[args.out]
buffer = "float"
count = "ROWS * COLS"
access = "write"
result = true
shape = ["COLS", "ROWS"]
[args.rows]
scalar = "int"
value = "ROWS"
[args.cols]
scalar = "int"
value = "COLS"
[reference]
numpy = "in.T"
---*/
#define TS 16

__kernel void transpose(__global const float* in, __global float* out, int rows, int cols)
{
    __local float t[TS][TS + 1];
    int tx = get_local_id(0), ty = get_local_id(1);
    int col = get_group_id(0) * TS + tx;
    int row = get_group_id(1) * TS + ty;
    if (row < rows && col < cols)
        t[tx][ty] = in[row * cols + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    int out_col = get_group_id(1) * TS + tx;
    int out_row = get_group_id(0) * TS + ty;
    if (out_row < cols && out_col < rows)
        out[out_row * rows + out_col] = t[ty][tx];
}
