/*---
name = "Seed 003: func1 (naive)"
family = "matmul"
kernel = "func1"
args = ["A", "B", "M", "N", "K", "C"]
global = ["N", "M"]
local = ["16", "16"]
sizes = ["N % L0 == 0", "M % L1 == 0"]
[about]
source = "seed 003"
bug = "It has no bounds check, so a global size rounded up past N or M reads and writes outside the matrices; it is only correct when N and M are multiples of the work-group size."
text = """The book example's plain kernel: one work-item per element of c, dimension 0 along
the columns, so neighbouring work-items read neighbouring elements of b and write
neighbouring elements of c. Each work-item walks a row of a and a column of b in global
memory; every element of a is read N times and every element of b M times. The post timed
it at 43.6 ms for 768×768 on an Intel integrated GPU."""
---*/

/* As written in seed 003 (kernel1), indentation tidied. */
kernel void func1(global float* a, global float* b, int M, int N, int K, global float *c)
{
    int i = get_global_id(1);
    int j = get_global_id(0);
    float v = 0;
    for (int k = 0; k < K; k++)
    {
        v += a[i * K + k] * b[k * N + j];
    }
    c[i * N + j] = v;
}
