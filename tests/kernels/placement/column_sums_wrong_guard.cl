/*---
name = "Column sums whose guard stops at the row count"
family = "custom"
kernel = "column_sums"
global = ["COLS"]
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
count = "COLS"
result = true
[args.rows]
scalar = "int"
value = "ROWS"
[args.cols]
scalar = "int"
value = "COLS"
[reference]
numpy = "sum(m, axis=0)"
[about]
bug = "c >= rows sends the work-items of the last COLS - ROWS columns away: nobody writes them"
---*/
__kernel void column_sums(__global const float* m, __global float* out, int rows, int cols)
{
    const int c = get_global_id(0);
    if (c >= rows)
        return;
    float s = 0.0f;
    for (int r = 0; r < rows; r++)
        s += m[r * cols + c];
    out[c] = s;
}
