/*---
name = "Exercise: a 2-D index map (mirror)"
family = "custom"
kernel = "mirror"
global = ["COLS", "ROWS"]
local = ["8", "8"]
[sizes]
ROWS = 16
COLS = 24
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
shape = ["ROWS", "COLS"]
[args.rows]
scalar = "int"
value = "ROWS"
[args.cols]
scalar = "int"
value = "COLS"
[reference]
numpy = "in[:, ::-1]"
---*/
__kernel void mirror(__global const float* in, __global float* out, int rows, int cols)
{
    int row = get_global_id(1);
    int col = get_global_id(0);
    if (row < rows && col < cols)
        out[row * cols + col] = in[row * cols + (cols - col)];
}
