/*---
name = "Tiled matmul without its second barrier"
family = "matmul"
kernel = "tiled_race"
args = ["M", "N", "K", "A", "B", "C"]
global = ["N", "M"]
local = ["16", "16"]
sizes = ["M % 16 == 0", "N % 16 == 0", "K % 16 == 0", "L0 == 16", "L1 == 16"]
[about]
text = "The tiled kernel with the barrier after the multiply removed: the next tile overwrites what slower work-items still read."
---*/
__kernel void tiled_race(const int M, const int N, const int K,
                         const __global float* A, const __global float* B, __global float* C)
{
    const int tx = get_local_id(0), ty = get_local_id(1);
    const int col = get_group_id(0) * 16 + tx, row = get_group_id(1) * 16 + ty;
    __local float As[16][16];
    __local float Bs[16][16];
    float acc = 0.0f;
    for (int t = 0; t < K / 16; t++) {
        As[ty][tx] = A[row * K + t * 16 + tx];
        Bs[ty][tx] = B[(t * 16 + ty) * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < 16; k++)
            acc += As[ty][k] * Bs[k][tx];
    }
    C[row * N + col] = acc;
}
