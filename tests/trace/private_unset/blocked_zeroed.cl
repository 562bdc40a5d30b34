/*---
name = "a register-blocked matrix product whose accumulators are zeroed first"
family = "custom"
kernel = "mm_zeroed"
global = ["16", "16"]
local = ["8", "8"]
[args.A]
buffer = "float"
count = "4096"
access = "read"
[args.B]
buffer = "float"
count = "4096"
access = "read"
[args.C]
buffer = "float"
count = "4096"
contents = "zeros"
[args.N]
scalar = "int"
value = "64"
---*/
#line 1
#define TM 4
#define TN 4

__kernel void mm_zeroed(__global const float *A, __global const float *B,
                         __global float *C, const int N)
{
    const int row0 = get_global_id(1) * TM;
    const int col0 = get_global_id(0) * TN;
    float acc[TM][TN];
    float b[TN];
    for (int i = 0; i < TM; i++)
        for (int j = 0; j < TN; j++)
            acc[i][j] = 0.0f;
    for (int k = 0; k < N; k++) {
        for (int j = 0; j < TN; j++)
            b[j] = B[k * N + col0 + j];
        for (int i = 0; i < TM; i++) {
            const float a = A[(row0 + i) * N + k];
            for (int j = 0; j < TN; j++)
                acc[i][j] += a * b[j];
        }
    }
    for (int i = 0; i < TM; i++)
        for (int j = 0; j < TN; j++)
            C[(row0 + i) * N + col0 + j] = acc[i][j];
}
