/*---
name = "Transpose of int32 (2-D grid, shapes from the declaration)"
family = "custom"
kernel = "transpose_int"
global = ["COLS", "ROWS"]
local = ["8", "8"]
[sizes]
ROWS = 24
COLS = 40
[args.src]
buffer = "int"
count = "ROWS * COLS"
access = "read"
shape = ["ROWS", "COLS"]
[args.dst]
buffer = "int"
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
numpy = "src.T"
---*/
__kernel void transpose_int(__global const int* src, __global int* dst, int rows, int cols)
{
    int c = get_global_id(0), r = get_global_id(1);
    if (r < rows && c < cols)
        dst[c * rows + r] = src[r * cols + c];
}
