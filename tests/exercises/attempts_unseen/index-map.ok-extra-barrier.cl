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
    int col = get_global_id(0), row = get_global_id(1);
    float v = 0.0f;
    bool inside = row < rows && col < cols;
    if (inside)
        v = in[mad24(row, cols, cols - 1 - col)];
    barrier(CLK_GLOBAL_MEM_FENCE);
    if (inside)
        out[mad24(row, cols, col)] = v;
}
