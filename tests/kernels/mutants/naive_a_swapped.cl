/*---
name = "Naive, A's subscripts swapped"
family = "matmul"
kernel = "matmul_naive"
args = ["M", "N", "K", "A", "B", "C"]
global = ["N", "M"]
local = ["16", "16"]
sizes = ["M == K"]
[about]
source = "our own test kernel: the catalog's kernel with one change"
bug = "Reads A[k][row] for A[row][k]: right only where A is symmetric (the IOU input's A = 1.5·I)."
text = "Reads A[k][row] for A[row][k]: right only where A is symmetric (the IOU input's A = 1.5·I)."
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
        acc += A[k * K + row] * B[k * N + col];
    C[row * N + col] = acc;
}
