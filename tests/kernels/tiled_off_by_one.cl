/*---
name = "Tiled matmul with an off-by-one tile index"
family = "matmul"
kernel = "tiled_oob"
args = ["M", "N", "K", "A", "B", "C"]
global = ["N", "M"]
local = ["16", "16"]
sizes = ["M % 16 == 0", "N % 16 == 0", "K % 16 == 0", "L0 == 16", "L1 == 16"]
[about]
text = "Loads the tile of A one tile too far along K: the last tile reads past the end of A."
---*/
__kernel void tiled_oob(const int M, const int N, const int K,
                        const __global float* A, const __global float* B, __global float* C)
{
    const int tx = get_local_id(0), ty = get_local_id(1);
    const int col = get_group_id(0) * 16 + tx, row = get_group_id(1) * 16 + ty;
    __local float As[16][16];
    __local float Bs[16][16];
    float acc = 0.0f;
    for (int t = 0; t < K / 16; t++) {
        As[ty][tx] = A[row * K + (t + 1) * 16 + tx];
        Bs[ty][tx] = B[(t * 16 + ty) * N + col];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < 16; k++)
            acc += As[ty][k] * Bs[k][tx];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    C[row * N + col] = acc;
}
