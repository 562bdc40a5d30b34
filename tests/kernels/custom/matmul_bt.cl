/*---
name = "Column-major matmul with B transposed by the host"
family = "matmul"
kernel = "mm_bt"
args = ["M", "N", "K", "A", "B", "C"]
global = ["M", "N"]
local = ["8", "8"]
[layout]
default = "column-major"
B = "transposed"
---*/
/* Bt is N x K, column-major: element (n, k) at k * N + n. */
__kernel void mm_bt(const int M, const int N, const int K,
                    __global const float* A, __global const float* Bt, __global float* C)
{
    int m = get_global_id(0), n = get_global_id(1);
    if (m >= M || n >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
        acc += A[k * M + m] * Bt[n + k * N];
    C[n * M + m] = acc;
}
