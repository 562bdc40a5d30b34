/*---
name = "Column-major matmul (every matrix column-major)"
family = "matmul"
kernel = "mm_colmajor"
args = ["M", "N", "K", "A", "B", "C"]
global = ["M", "N"]
local = ["8", "8"]
layout = "column-major"
---*/
__kernel void mm_colmajor(const int M, const int N, const int K,
                          __global const float* A, __global const float* B, __global float* C)
{
    int m = get_global_id(0), n = get_global_id(1);
    if (m >= M || n >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
        acc += A[k * M + m] * B[n * K + k];
    C[n * M + m] = acc;
}
