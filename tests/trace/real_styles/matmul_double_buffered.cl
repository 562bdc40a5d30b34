/*---
name = "double-buffered tiles [2][TS][TS+1], one barrier per step"
family = "custom"
kernel = "mmdb"
global = ["16", "16"]
local = ["8", "8"]
[args.A]
buffer = "float"
count = "256"
access = "read"
[args.B]
buffer = "float"
count = "256"
access = "read"
[args.C]
buffer = "float"
count = "256"
contents = "zeros"
writes = "all"
[reference]
numpy = "(A.reshape(16, 16) @ B.reshape(16, 16)).ravel()"
terms = "16"
---*/
#line 1
#define TS 8
#define N 16
__kernel void mmdb(__global const float *A, __global const float *B, __global float *C)
{
    __local float As[2][TS][TS + 1], Bs[2][TS][TS + 1];
    int tx = get_local_id(0), ty = get_local_id(1);
    int row = get_global_id(1), col = get_global_id(0);
    As[0][ty][tx] = A[row * N + tx];
    Bs[0][ty][tx] = B[ty * N + col];
    barrier(CLK_LOCAL_MEM_FENCE);
    float acc = 0.0f;
    for (int t = 0; t < N / TS; t++) {
        int cur = t & 1, nxt = cur ^ 1;
        if (t + 1 < N / TS) {
            As[nxt][ty][tx] = A[row * N + (t + 1) * TS + tx];
            Bs[nxt][ty][tx] = B[((t + 1) * TS + ty) * N + col];
        }
        for (int k = 0; k < TS; k++)
            acc += As[cur][ty][k] * Bs[cur][k][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * N + col] = acc;
}
