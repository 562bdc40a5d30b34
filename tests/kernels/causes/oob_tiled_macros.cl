/*---
name = "a tiled product through accessor macros, one tile too many"
family = "custom"
kernel = "tiled"
global = ["N", "M"]
local = ["8", "8"]
[sizes]
M = 16
N = 24
K = 32
[args.M]
scalar = "int"
value = "M"
[args.N]
scalar = "int"
value = "N"
[args.K]
scalar = "int"
value = "K"
[args.A]
buffer = "float"
count = "M * K"
access = "read"
[args.B]
buffer = "float"
count = "K * N"
access = "read"
[args.C]
buffer = "float"
count = "M * N"
contents = "zeros"
---*/
#line 1
#define TS 8
#define AT(m, r, c, stride) m[(r) * (stride) + (c)]

__kernel void tiled(int M, int N, int K, __global const float* A, __global const float* B,
                    __global float* C)
{
    __local float As[TS][TS], Bs[TS][TS];
    int lx = get_local_id(0), ly = get_local_id(1);
    int col = get_global_id(0), row = get_global_id(1);
    float acc = 0.0f;
    for (int t = 0; t <= K / TS; t++) {
        As[ly][lx] = AT(A, row, t * TS + lx, K);
        Bs[ly][lx] = AT(B, t * TS + ly, col, N);
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TS; k++)
            acc += As[ly][k] * Bs[k][lx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    AT(C, row, col, N) = acc;
}
