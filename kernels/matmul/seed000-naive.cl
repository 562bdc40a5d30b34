/*---
name = "Seed 000: naive (int)"
family = "matmul"
kernel = "hello_kernel"
args = ["A", "B", "C", "M", "N", "K"]
global = ["M", "N"]
local = ["16", "16"]
sizes = ["M % L0 == 0", "N % L1 == 0"]
dtype = "int32"
[about]
source = "seed 000"
bug = "It has no bounds check, so a global size rounded up past M or N reads and writes outside the matrices; it is only correct when M and N are multiples of the work-group size."
text = """The blog's first kernel, on integers: one work-item per element of the result, with
dimension 0 running down the rows. Each work-item reads a whole row of a and a whole column
of b from global memory, so every element is fetched M or N times; the post counts M·N·K·2
global loads and sets out to cut them down with local memory in the next kernel."""
---*/

/* As written in seed 000 (line breaks restored). result_matrix_row is passed but unused. */
__kernel void hello_kernel(__global const int *a,
                           __global const int *b,
                           __global int *result_matrix,int  result_matrix_row,
                           int  result_matrix_col,int  compute_size)
{
    int row = get_global_id(0);
    int col = get_global_id(1);
    int sum = 0;
    for(int i=0;i<compute_size;i++)
    {
        sum += a[row*compute_size+i] * b[i*result_matrix_col+col];
    }
    result_matrix[row*result_matrix_col+col] = sum;
}
