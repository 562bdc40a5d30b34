/*---
name = "Row sums by walking a pointer (*p++), the destination chosen by a ternary on pointers"
family = "custom"
kernel = "row_sums"
global = ["ROWS"]
local = ["8"]
[sizes]
ROWS = 16
COLS = 8
[args.m]
buffer = "float"
count = "ROWS * COLS"
access = "read"
[args.even]
buffer = "float"
count = "ROWS / 2"
contents = "zeros"
access = "write"
writes = "all"
[args.odd]
buffer = "float"
count = "ROWS / 2"
contents = "zeros"
access = "write"
writes = "all"
[args.cols]
scalar = "int"
value = "COLS"
---*/
#line 1
__kernel void row_sums(__global const float *m, __global float *even, __global float *odd,
                       const int cols)
{
    int r = get_global_id(0);
    __global const float *p = m + r * cols;
    float s = 0.0f;
    for (int c = 0; c <= cols; c++)
        s += *p++;
    __global float *dst = (r & 1) ? odd : even;
    dst[r / 2] = s;
}
