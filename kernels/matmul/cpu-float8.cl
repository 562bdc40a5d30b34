/*---
name = "CPU: float8 register blocks"
family = "matmul"
kernel = "matmul_cpu_float8"
args = ["M", "N", "K", "A", "B", "C"]
global = ["cdiv(N, 16)", "cdiv(M, RM)"]
local = ["1", "GROUP"]
sizes = ["L0 == 1"]
[defines]
RM = 8
GROUP = 16
[allowed]
RM = [1, 2, 4, 6, 8]
[about]
source = "own, after the register-blocked micro-kernels of CPU BLAS libraries (BLIS, OpenBLAS)"
bug = ""
text = """Written for CPU devices such as PoCL, not for GPUs: it is not a step of the GPU ladder.
Each work-item computes an RM×16 block of C in registers, as 2·RM float8 accumulators (one
AVX register each). Per step along K it loads 16 values of one row of B as two float8 and
RM values of A, and does 2·RM float8 multiply-adds: no local memory, no barriers, nothing
for the CPU to emulate. A work-group is GROUP work-items stacked along M over the same 16
columns, so the strip of B they all read stays in the core's cache, and neighbouring groups
share the same rows of A. On a GPU its loads are uncoalesced: use reg2d there."""
---*/

#ifndef RM
#define RM 8        /* rows of C per work-item                         */
#endif
#ifndef GROUP
#define GROUP 16    /* work-items per work-group, one above the other  */
#endif

__kernel void matmul_cpu_float8(const int M, const int N, const int K,
                                const __global float* restrict A,
                                const __global float* restrict B,
                                __global float* restrict C)
{
    const int col = get_global_id(0) * 16;   /* first column of this block of C */
    const int row = get_global_id(1) * RM;   /* first row of this block of C    */
    if (col >= N || row >= M)
        return;   /* the global size was rounded up; no barriers follow */

    if (col + 16 <= N && row + RM <= M) {
        /* The whole RM x 16 block lies inside C: vector code only. */
        float8 lo[RM];   /* columns col .. col+7  */
        float8 hi[RM];   /* columns col+8 .. col+15 */
        #pragma unroll
        for (int r = 0; r < RM; r++) {
            lo[r] = (float8)(0.0f);
            hi[r] = (float8)(0.0f);
        }
        const __global float* a = A + (size_t)row * K;
        const __global float* b = B + col;
        for (int k = 0; k < K; k++) {
            const float8 b0 = vload8(0, b + (size_t)k * N);
            const float8 b1 = vload8(1, b + (size_t)k * N);
            #pragma unroll
            for (int r = 0; r < RM; r++) {
                const float ar = a[(size_t)r * K + k];
                lo[r] += ar * b0;
                hi[r] += ar * b1;
            }
        }
        #pragma unroll
        for (int r = 0; r < RM; r++) {
            vstore8(lo[r], 0, C + (size_t)(row + r) * N + col);
            vstore8(hi[r], 1, C + (size_t)(row + r) * N + col);
        }
    } else {
        /* A block on the right or bottom edge: one element at a time, bounds-checked. */
        for (int r = 0; r < RM && row + r < M; r++) {
            for (int c = 0; c < 16 && col + c < N; c++) {
                float sum = 0.0f;
                for (int k = 0; k < K; k++)
                    sum += A[(size_t)(row + r) * K + k] * B[(size_t)k * N + col + c];
                C[(size_t)(row + r) * N + col + c] = sum;
            }
        }
    }
}
