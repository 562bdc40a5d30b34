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

/* out = the transpose of in (both row-major; in is rows x cols, out is cols x rows).
   A work-group reads a TS x TS tile of in along its rows (coalesced), and writes it to
   out, also along rows (coalesced): the transposition happens in local memory. */
__kernel void transpose(__global const float* in, __global float* out, int rows, int cols)
{
    __local float tile[TS][TS];
    int tx = get_local_id(0), ty = get_local_id(1);
    int col = get_group_id(0) * TS + tx;     /* the element of in this work-item reads */
    int row = get_group_id(1) * TS + ty;
    if (row < rows && col < cols)
        tile[ty][tx] = in[row * cols + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    int out_col = get_group_id(1) * TS + tx; /* the element of out this work-item writes */
    int out_row = get_group_id(0) * TS + ty;
    if (out_row < cols && out_col < rows)
        out[out_row * rows + out_col] = tile[tx][ty];
}
