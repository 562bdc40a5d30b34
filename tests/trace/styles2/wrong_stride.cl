/*---
name = "Copy of a ROWS x COLS matrix whose output index strides by the row count"
family = "custom"
kernel = "copy2d"
global = ["COLS", "ROWS"]
local = ["8", "4"]
[sizes]
ROWS = 16
COLS = 8
[args.src]
buffer = "float"
count = "ROWS * COLS"
access = "read"
[args.dst]
buffer = "float"
count = "ROWS * COLS"
contents = "zeros"
access = "write"
writes = "all"
[args.rows]
scalar = "int"
value = "ROWS"
[args.cols]
scalar = "int"
value = "COLS"
---*/
#line 1
__kernel void copy2d(__global const float *src, __global float *dst, int rows, int cols)
{
    int c = get_global_id(0), r = get_global_id(1);
    dst[r * rows + c] = src[r * cols + c];
}
