/*---
name = "Reads B transposed"
family = "matmul"
kernel = "matmul_bt"
args = ["M", "N", "K", "A", "B", "C"]
global = ["N", "M"]
local = ["8", "8"]
[about]
source = "our own test kernel, in the style of tutorial SGEMM kernels that expect Bᵀ"
text = """C = A·B with A and C row-major and B read as Bᵀ: element (k, n) of B at n·K + k. Its
header names no layout, so only --layout A=row,B=T gives it the order it reads."""
---*/

__kernel void matmul_bt(const int M, const int N, const int K,
                        const __global float* A, const __global float* B, __global float* C)
{
    const int n = get_global_id(0);
    const int m = get_global_id(1);
    if (m >= M || n >= N)
        return;
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
        acc += A[m * K + k] * B[n * K + k];
    C[m * N + n] = acc;
}
