/*---
name = "Exercise: the guard of a partial tile"
family = "custom"
kernel = "matmul_tiled"
global = ["N", "M"]
local = ["8", "8"]
[sizes]
M = 20
N = 12
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
#define TS 8

__kernel void matmul_tiled(__global const float* A, __global const float* B,
                           __global float* C, int M, int N, int K)
{
    int tx = get_local_id(0), ty = get_local_id(1);
    int col = get_group_id(0) * TS + tx;
    int row = get_group_id(1) * TS + ty;
    if (row >= M || col >= N)
        return;
    __local float Asub[TS][TS];
    __local float Bsub[TS][TS];
    float acc = 0.0f;
    for (int t = 0; t < (K + TS - 1) / TS; t++) {
        int kA = t * TS + tx;
        int kB = t * TS + ty;
        Asub[ty][tx] = (kA < K) ? A[row * K + kA] : 0.0f;
        Bsub[ty][tx] = (kB < K) ? B[kB * N + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TS; k++)
            acc += Asub[ty][k] * Bsub[k][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * N + col] = acc;
}
