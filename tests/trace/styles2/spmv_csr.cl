/*---
name = "CSR sparse matrix-vector product: a row per work-item (scalar) or a row per work-group (vector)"
family = "custom"
kernel = "spmv_scalar"
global = ["ROWS"]
local = ["32"]
[sizes]
ROWS = 64
NNZ_ROW = 8
[args.row_ptr]
buffer = "int"
count = "ROWS + 1"
contents = "iota"
value = 0
step = 8
access = "read"
[args.cols]
buffer = "int"
count = "ROWS * NNZ_ROW"
contents = "random"
range = [0, 64]
access = "read"
[args.vals]
buffer = "float"
count = "ROWS * NNZ_ROW"
access = "read"
[args.x]
buffer = "float"
count = "64"
access = "read"
[args.y]
buffer = "float"
count = "ROWS"
contents = "zeros"
access = "write"
writes = "all"
[args.rows]
scalar = "int"
value = "ROWS"
---*/
#line 1
__kernel void spmv_scalar(__global const int *row_ptr, __global const int *cols,
                          __global const float *vals, __global const float *x,
                          __global float *y, const int rows)
{
    int row = get_global_id(0);
    if (row < rows) {
        float dot = 0.0f;
        for (int j = row_ptr[row]; j < row_ptr[row + 1]; j++)
            dot += vals[j] * x[cols[j]];
        y[row] = dot;
    }
}

__kernel void spmv_vector(__global const int *row_ptr, __global const int *cols,
                          __global const float *vals, __global const float *x,
                          __global float *y, const int rows, __local float *part)
{
    int row = get_group_id(0), l = get_local_id(0), ls = get_local_size(0);
    float dot = 0.0f;
    for (int j = row_ptr[row] + l; j < row_ptr[row + 1]; j += ls)
        dot += vals[j] * x[cols[j]];
    part[l] = dot;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = ls / 2; s > 0; s >>= 1) {
        if (l < s)
            part[l] += part[l + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        y[row] = part[0];
}
