/*---
name = "Exercise: naive matrix product"
family = "custom"
kernel = "matmul"
global = ["N", "M"]
local = ["8", "8"]
[sizes]
M = 24
N = 16
K = 20
[args.A]
buffer = "float"
count = "M * K"
access = "read"
shape = ["M", "K"]
[args.B]
buffer = "float"
count = "K * N"
access = "read"
shape = ["K", "N"]
[args.C]
buffer = "float"
count = "M * N"
access = "write"
result = true
shape = ["M", "N"]
[args.M]
scalar = "int"
value = "M"
[args.N]
scalar = "int"
value = "N"
[args.K]
scalar = "int"
value = "K"
[reference]
numpy = "A @ B"
terms = "K"
---*/
/* C = A B, every matrix row-major: A is M x K, B is K x N, C is M x N. */
__kernel void matmul(__global const float* A, __global const float* B, __global float* C,
                     int M, int N, int K)
{
    int col = get_global_id(0);   /* column of C */
    int row = get_global_id(1);   /* row of C */
    if (row >= M || col >= N)
        return;
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
        acc += A[k * M + row] * B[k * N + col];
    C[row * N + col] = acc;
}
