/*---
name = "Naive, loop bound k <= K (mutant)"
family = "matmul"
kernel = "matmul_naive"
args = ["M", "N", "K", "A", "B", "C"]
global = ["N", "M"]
local = ["16", "16"]
[about]
source = "our own test kernel: the catalog's kernel with one change (line 26)"
bug = "the loop runs to k <= K: the last pass reads one past the row of A and the column of B"
text = """One work-item per element of C: it walks a row of A and a column of B straight
from global memory. Every element of A is read N times and every element of B M times,
so the kernel waits on memory, not on arithmetic. The baseline of the ladder."""
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
    for (int k = 0; k <= K; k++)
        acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
}
