/*---
name = "Exercise: tiled matrix product, where the barriers go"
family = "custom"
kernel = "matmul_tiled"
global = ["N", "M"]
local = ["8", "8"]
[sizes]
M = 16
N = 16
K = 16
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
    __local float Asub[TS][TS];
    __local float Bsub[TS][TS];
    float acc = 0.0f;
    for (int t = 0; t < K / TS; t++) {
        barrier(CLK_LOCAL_MEM_FENCE);   /* everyone is done with the previous tiles */
        Asub[ty][tx] = A[row * K + t * TS + tx];
        Bsub[ty][tx] = B[(t * TS + ty) * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);   /* the tiles are full */
        for (int k = 0; k < TS; k++)
            acc += Asub[ty][k] * Bsub[k][tx];
    }
    C[row * N + col] = acc;
}
