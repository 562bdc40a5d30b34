/*---
name = "Exercise: choose a local size the device accepts"
family = "custom"
kernel = "transpose"
global = ["COLS", "ROWS"]
local = ["1024", "1"]
constraints = ["L0 == L1", "L0 * L1 >= 64"]
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
[args.tile]
local = "float"
count = "L0 * (L0 + 1)"
[reference]
numpy = "in.T"
---*/
/* A tiled transpose whose tile is as large as its work-group: square (L0 == L1), padded
   by one column. It is right for any square local size; the header's local = [...] above
   chooses the one that is launched. */
__kernel void transpose(__global const float* in, __global float* out, int rows, int cols,
                        __local float* tile)
{
    int ts = get_local_size(0);
    int tx = get_local_id(0), ty = get_local_id(1);
    int col = get_group_id(0) * ts + tx;
    int row = get_group_id(1) * ts + ty;
    if (row < rows && col < cols)
        tile[ty * (ts + 1) + tx] = in[row * cols + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    int out_col = get_group_id(1) * ts + tx;
    int out_row = get_group_id(0) * ts + ty;
    if (out_row < cols && out_col < rows)
        out[out_row * rows + out_col] = tile[tx * (ts + 1) + ty];
}
