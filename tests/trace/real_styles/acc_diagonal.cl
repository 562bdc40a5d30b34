/*---
name = "register-blocked matmul, only the diagonal of acc zeroed"
family = "custom"
kernel = "mm"
global = ["8", "8"]
local = ["4", "4"]
[args.A]
buffer = "float"
count = "1024"
access = "read"
[args.B]
buffer = "float"
count = "1024"
access = "read"
[args.C]
buffer = "float"
count = "1024"
contents = "zeros"
[args.N]
scalar = "int"
value = "32"
---*/
#line 1
#define TM 4
#define TN 4
__kernel void mm(__global const float *A, __global const float *B, __global float *C, int N)
{
    int r0 = get_global_id(1) * TM, c0 = get_global_id(0) * TN;
    float acc[TM][TN];
    for (int i = 0; i < TM; i++)
        acc[i][i] = 0.0f;
    for (int k = 0; k < N; k++)
        for (int i = 0; i < TM; i++)
            for (int j = 0; j < TN; j++)
                acc[i][j] += A[(r0 + i) * N + k] * B[k * N + c0 + j];
    for (int i = 0; i < TM; i++)
        for (int j = 0; j < TN; j++)
            C[(r0 + i) * N + c0 + j] = acc[i][j];
}
