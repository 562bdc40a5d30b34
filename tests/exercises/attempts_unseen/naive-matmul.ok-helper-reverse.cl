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
#define A_(r, c) A[(r) * K + (c)]
#define B_(r, c) B[(r) * N + (c)]

float dot(__global const float* A, __global const float* B, int K, int N, int row, int col)
{
    float s = 0;
    int k = K;
    while (k-- > 0)
        s = mad(A_(row, k), B_(k, col), s);
    return s;
}

__kernel void matmul(__global const float* A, __global const float* B, __global float* C,
                     int M, int N, int K)
{
    int col = get_global_id(0), row = get_global_id(1);
    if (row >= M || col >= N)
        return;
    C[row * N + col] = dot(A, B, K, N, row, col);
}
