/*---
name = "Row sums, each group taking every other row through a row pointer"
family = "custom"
kernel = "strided_rows"
global = ["8"]
local = ["4"]
[sizes]
ROWS = 6
COLS = 4
[args.m]
buffer = "float"
count = "ROWS * COLS"
access = "read"
shape = ["ROWS", "COLS"]
[args.out]
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
[reference]
numpy = "2 * m"
---*/
__kernel void strided_rows(__global const float* m, __global float* out, int rows, int cols)
{
    const int c = get_local_id(0);
    for (int y = get_group_id(0); y < rows; y += get_num_groups(0)) {
        const __global float* row = m + y * cols;
        out[y * cols + c] = 2.0f * row[c];
    }
}
