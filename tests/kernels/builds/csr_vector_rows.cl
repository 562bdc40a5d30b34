/*---
name = "CSR rows, one warp-sized group of lanes per row, lane 0 writes (32,768 work-items)"
family = "custom"
kernel = "csr_rows"
global = ["32768"]
local = ["128"]
[args.vals]
buffer = "float"
count = "40960"
access = "read"
[args.x]
buffer = "float"
count = "1024"
access = "read"
[args.starts]
buffer = "int"
count = "1025"
contents = "iota"
access = "read"
[args.rows]
scalar = "int"
value = "1024"
[args.lanes]
scalar = "int"
value = "32"
[args.out]
buffer = "float"
count = "1024"
contents = "zeros"
[reference.numpy]
out = "sum(reshape(vals, (1024, 40)) * x[(7 * reshape(arange(40960), (1024, 40)) + reshape(arange(1024), (1024, 1))) % 1024], axis=1)"
---*/
#line 1
#define PER_ROW 40

/* Lanes of one row (a warp's worth) sum its products, reduce them in local memory, and lane 0
 * alone writes the row's result: the shape of a CSR "vector" SpMV kernel. */
__kernel void csr_rows(__global const float* vals, __global const float* x,
                       __global const int* starts, int rows, int lanes, __global float* out)
{
    __local volatile float partial[128];
    int t = get_local_id(0);
    int lane = t & (lanes - 1);
    int row = get_group_id(0) * (get_local_size(0) / lanes) + t / lanes;
    partial[t] = 0.0f;
    if (row < rows) {
        int begin = starts[row] * PER_ROW, end = starts[row + 1] * PER_ROW;
        float sum = 0.0f;
        for (int j = begin + lane; j < end; j += lanes)
            sum += vals[j] * x[(j * 7 + row) % rows];
        partial[t] = sum;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int step = lanes / 2; step > 0; step /= 2) {
            if (lane < step)
                partial[t] += partial[t + step];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (lane == 0)
            out[row] = partial[t];
    }
}
