/*---
name = "Row-major A and C, column-major B"
family = "matmul"
kernel = "mm_mixed"
args = ["M", "N", "K", "A", "B", "C"]
global = ["N", "M"]
local = ["8", "8"]
[layout]
B = "column-major"
---*/
__kernel void mm_mixed(const int M, const int N, const int K,
                       __global const float* A, __global const float* B, __global float* C)
{
    int n = get_global_id(0), m = get_global_id(1);
    if (m >= M || n >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
        acc += A[m * K + k] * B[n * K + k];
    C[m * N + n] = acc;
}
