/*---
name = "Row sums whose loop stops at the row count"
family = "custom"
kernel = "row_sums"
global = ["ROWS"]
local = ["2"]
[sizes]
ROWS = 6
COLS = 10
[args.m]
buffer = "float"
count = "ROWS * COLS"
access = "read"
shape = ["ROWS", "COLS"]
[args.out]
buffer = "float"
count = "ROWS"
result = true
[args.rows]
scalar = "int"
value = "ROWS"
[args.cols]
scalar = "int"
value = "COLS"
[reference]
numpy = "sum(m, axis=1)"
[about]
bug = "the loop runs while c < rows: the last COLS - ROWS elements of each row never arrive"
---*/
__kernel void row_sums(__global const float* m, __global float* out, int rows, int cols)
{
    int r = get_global_id(0);
    if (r >= rows)
        return;
    float s = 0.0f;
    for (int c = 0; c < rows; c++)
        s += m[r * cols + c];
    out[r] = s;
}
