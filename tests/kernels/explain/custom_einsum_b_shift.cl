/*---
name = "A product whose reference is an einsum, B read one column to the right"
family = "custom"
kernel = "product"
global = ["N", "M"]
local = ["8", "8"]
[sizes]
M = 12
N = 10
K = 9
[args.A]
buffer = "float"
count = "M * K"
shape = ["M", "K"]
access = "read"
[args.B]
buffer = "float"
count = "K * N"
shape = ["K", "N"]
access = "read"
[args.C]
buffer = "float"
count = "M * N"
shape = ["M", "N"]
access = "write"
result = true
[args.m]
scalar = "int"
value = "M"
[args.n]
scalar = "int"
value = "N"
[args.k]
scalar = "int"
value = "K"
[reference]
numpy = "einsum('ik,kj->ij', A, B)"
[about]
text = "A mutant the explanation of a wrong element is tested on: its needs come from the einsum."
---*/
__kernel void product(__global const float* A, __global const float* B, __global float* C,
                      int m, int n, int k)
{
    int col = get_global_id(0), row = get_global_id(1);
    if (row >= m || col >= n) return;
    float acc = 0.0f;
    for (int i = 0; i < k; i++)
        acc += A[row * k + i] * B[i * n + (col + 1) % n];
    C[row * n + col] = acc;
}
