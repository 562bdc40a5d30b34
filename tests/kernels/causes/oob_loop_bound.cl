/*---
name = "a naive matrix product whose loop runs to k <= K"
family = "custom"
kernel = "product"
global = ["N", "M"]
local = ["4", "4"]
[sizes]
M = 8
N = 12
K = 16
[args.A]
buffer = "float"
count = "M * K"
access = "read"
[args.B]
buffer = "float"
count = "K * N"
access = "read"
[args.C]
buffer = "float"
count = "M * N"
contents = "zeros"
[args.M]
scalar = "uint"
value = "M"
[args.N]
scalar = "uint"
value = "N"
[args.K]
scalar = "uint"
value = "K"
---*/
#line 1
__kernel void product(__global const float* A, __global const float* B, __global float* C,
                      uint M, uint N, uint K)
{
    uint col = get_global_id(0), row = get_global_id(1);
    float acc = 0.0f;
    for (uint k = 0; k <= K; k++)
        acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
}
