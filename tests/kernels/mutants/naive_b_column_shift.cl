/*---
name = "Naive, B's column shifted by one"
family = "matmul"
kernel = "matmul_naive"
args = ["M", "N", "K", "A", "B", "C"]
global = ["N", "M"]
local = ["16", "16"]
[about]
source = "our own test kernel: the catalog's kernel with one change"
bug = "Reads column col + 1 of B (the last column itself): right only where B's neighbouring columns agree."
text = "Reads column col + 1 of B (the last column itself): right only where B's neighbouring columns agree."
---*/

__kernel void matmul_naive(const int M, const int N, const int K,
                           const __global float* A,
                           const __global float* B,
                           __global float* C)
{
    const int col = get_global_id(0);
    const int row = get_global_id(1);
    if (row >= M || col >= N)
        return;
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
        acc += A[row * K + k] * B[k * N + min(col + 1, N - 1)];
    C[row * N + col] = acc;
}
