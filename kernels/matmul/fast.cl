/*---
name = "8x16 blocks, a main loop with no tests"
family = "matmul"
kernel = "matmul_fast"
args = ["M", "N", "K", "A", "B", "C"]
global = ["cdiv(N, BN) * (BN / TN)", "cdiv(M, BM) * (BM / TM)"]
local = ["BN / TN", "BM / TM"]
sizes = [
    "L0 * TN == BN", "L1 * TM == BM", "(L0 * L1) % 32 == 0",
    "(BM * BK) % (4 * L0 * L1) == 0", "(BN * BK) % (4 * L0 * L1) == 0",
    "BN % (WX * TN) == 0", "BM % ((32 / WX) * TM) == 0",
]
[defines]
BM = 128
BN = 256
BK = 8
TM = 8
TN = 16
WX = 8
GM = 8
APAD = 4
UNALIGNED = 0
[allowed]
BM = [32, 64, 128, 256]
BN = [32, 64, 128, 256]
BK = [4, 8, 16, 32]
TM = [4, 8, 16]
TN = [4, 8, 16]
WX = [2, 4, 8, 16, 32]
GM = [0, 1, 2, 4, 8, 16, 32]
APAD = [0, 4]
UNALIGNED = [0, 1]
[[by_size]]
when = "CPU"
BM = 64
BN = 64
BK = 16
TM = 4
TN = 4
[[by_size]]
when = "(N % 4 != 0 or K % 4 != 0) and cdiv(M, 128) * cdiv(N, 128) >= 256"
BM = 64
BN = 64
BK = 16
TN = 8
UNALIGNED = 1
[[by_size]]
when = "cdiv(M, 128) * cdiv(N, 128) < 256 or N % 4 != 0 or K % 4 != 0"
BM = 64
BN = 64
BK = 16
TN = 8
[about]
source = "the explorer's own; the register tiling of S. Boehm's CUDA SGEMM ladder, in OpenCL C"
bug = ""
text = """warp's tiles, order and double buffers, with a larger block per work-item and a main
loop that tests nothing. Each work-item computes 8×16 values of C (a 128×256 tile for 256
work-items): per step along K it reads two float4s of A and four of B from local memory
for 128 multiply-adds, where warp reads four for 64, so fewer of the instructions the
compute unit issues are not multiply-adds. warp's loop also carried the tests for the last,
partial step along K and for rows that are not 16-byte aligned into every step: NVIDIA's
compiler kept both paths alive across the multiply. Here the steps whose successor is a
full step run in a loop of their own, with float4 loads at offsets fixed before the loop,
and only the last one or two steps take the guarded path; where rows of A or B are not
16-byte aligned (N or K not a multiple of 4) every step takes it, unless UNALIGNED = 1
compiles a third loop for them. Below 256 tiles of 128×128, or for unaligned rows, the
default is a 64×64 tile of 8×8 blocks with BK = 16, with the third loop only where rows
are unaligned and the problem is large (4097³): a small problem spends little time in
its steps, and the third loop triples the code to compile. On a CPU device the default is a
64×64 tile of 4×4 blocks at every size: PoCL compiles a group's work-items as loops over the
kernel, and the 8×8 blocks took it 10 CPU-seconds at 100×36×257 (4×4: 2) and ran slower
(512³: 217 ms, 4×4: 77 ms). On an H100: 0.96 of
cuBLAS at 4096³ (48.3 TFLOP/s; warp 0.89), one 256-item group per compute unit; the trace
shows the cause in its local reads: 6 float4s per 128 multiply-adds against warp's 4 per 64."""
---*/

#ifndef BM
#define BM 128    /* rows of C per work-group tile                             */
#endif
#ifndef BN
#define BN 256    /* columns of C per work-group tile                          */
#endif
#ifndef BK
#define BK 8      /* depth of the tiles staged in local memory                 */
#endif
#ifndef TM
#define TM 8      /* rows of C per work-item (a multiple of 4)                 */
#endif
#ifndef TN
#define TN 16     /* columns of C per work-item (a multiple of 4)              */
#endif
#ifndef WX
#define WX 8      /* work-items of a warp side by side along N                  */
#endif
#ifndef GM
#define GM 8      /* tile rows of C a band of consecutive groups walks (0: plain order) */
#endif
#ifndef APAD
#define APAD 4    /* padding of a row of transposed A in local memory (0 or 4)  */
#endif
#ifndef UNALIGNED
#define UNALIGNED 0  /* 1: an unguarded main loop for rows not 16-byte aligned too */
#endif

#define WY (32 / WX)                /* work-items of a warp along M            */
#define WTM (WY * TM)               /* rows of a warp's tile of C              */
#define WTN (WX * TN)               /* columns of a warp's tile of C           */
#define WARPS_N (BN / WTN)          /* warps side by side along N              */
#define RTSN (BN / TN)              /* local size 0 */
#define RTSM (BM / TM)              /* local size 1 */
#define NT (RTSN * RTSM)            /* work-items per group                    */
#define LPTA (BM * BK / 4 / NT)     /* float4 loads of A per work-item a step  */
#define LPTB (BK * BN / 4 / NT)     /* float4 loads of B per work-item a step  */
#define KA(i) (((t + (i) * NT) % (BK / 4)) * 4)   /* column of A of load i in the tile */

/* Four consecutive values p[0..3]; `vec` says p is 16-byte aligned. With `guard`, only
   the first `left` of them exist and the rest are zero (the last step along K). */
inline float4 fetch4(const __global float* p, const int vec, const int guard, const int left)
{
    if (!guard || left >= 4)
        return vec ? *(const __global float4*)p : vload4(0, p);
    float4 v = (float4)(0.0f);
    if (left > 0) v.x = p[0];
    if (left > 1) v.y = p[1];
    if (left > 2) v.z = p[2];
    return v;
}

/* Four consecutive values of a row of B from column col on. Columns past N read the last
   one instead (their results are never stored). */
inline float4 fetchB(const __global float* row, const int col, const int N, const int vec)
{
    if (vec)
        return *(const __global float4*)(row + min(col, N - 4));
    return (float4)(row[min(col, N - 1)], row[min(col + 1, N - 1)],
                    row[min(col + 2, N - 1)], row[min(col + 3, N - 1)]);
}

/* Registers -> local memory: A transposed (As[k][m]), B as it is (Bs[k][n]). */
inline void store_tiles(__local float* As, __local float* Bs,
                        const float4* aNext, const float4* bNext, const int t)
{
    #pragma unroll
    for (int i = 0; i < LPTA; i++) {
        const int idx = t + i * NT;
        const int m = idx / (BK / 4);
        const int k = (idx % (BK / 4)) * 4;
        As[(k + 0) * (BM + APAD) + m] = aNext[i].x;
        As[(k + 1) * (BM + APAD) + m] = aNext[i].y;
        As[(k + 2) * (BM + APAD) + m] = aNext[i].z;
        As[(k + 3) * (BM + APAD) + m] = aNext[i].w;
    }
    #pragma unroll
    for (int i = 0; i < LPTB; i++) {
        const int idx = t + i * NT;
        *(__local float4*)(Bs + (idx / (BN / 4)) * BN + (idx % (BN / 4)) * 4) = bNext[i];
    }
}

/* One step along K: BK rank-1 updates of this work-item's TM×TN block, its values of A and
   B read as float4s from local memory. A warp reads WY distinct float4s of A and WX of B,
   side by side: no bank conflicts, the rest are broadcasts. */
inline void multiply(const __local float* As, const __local float* Bs,
                     const int rowBase, const int colBase, float acc[TM][TN])
{
    #pragma unroll
    for (int k = 0; k < BK; k++) {
        float aReg[TM], bReg[TN];
        #pragma unroll
        for (int i = 0; i < TM / 4; i++) {
            const float4 a = *(const __local float4*)(As + k * (BM + APAD) + rowBase + i * 4 * WY);
            aReg[4 * i + 0] = a.x;
            aReg[4 * i + 1] = a.y;
            aReg[4 * i + 2] = a.z;
            aReg[4 * i + 3] = a.w;
        }
        #pragma unroll
        for (int j = 0; j < TN / 4; j++) {
            const float4 b = *(const __local float4*)(Bs + k * BN + colBase + j * 4 * WX);
            bReg[4 * j + 0] = b.x;
            bReg[4 * j + 1] = b.y;
            bReg[4 * j + 2] = b.z;
            bReg[4 * j + 3] = b.w;
        }
        #pragma unroll
        for (int i = 0; i < TM; i++)
            #pragma unroll
            for (int j = 0; j < TN; j++)
                acc[i][j] += aReg[i] * bReg[j];
    }
}

__kernel __attribute__((reqd_work_group_size(RTSN, RTSM, 1)))
void matmul_fast(const int M, const int N, const int K,
                 const __global float* restrict A,
                 const __global float* restrict B,
                 __global float* restrict C)
{
    const int t = get_local_id(1) * RTSN + get_local_id(0);
    /* Which tile of C: consecutive groups walk bands GM tiles tall (as in warp), so what
       they read is still in the L2 cache when the next one needs it. */
    int gm = get_group_id(1);
    int gn = get_group_id(0);
    if (GM > 0) {
        const int numN = get_num_groups(0);
        const int pid = gm * numN + gn;
        const int band = GM * numN;
        const int first = (pid / band) * GM;
        const int tall = min((int)get_num_groups(1) - first, GM);
        gm = first + (pid % band) % tall;
        gn = (pid % band) / tall;
    }
    const int offM = gm * BM;
    const int offN = gn * BN;

    /* This work-item's place: warp (wm, wn) of the group, lane (lm, ln) of the warp. */
    const int warp = t / 32;
    const int lane = t % 32;
    const int rowBase = (warp / WARPS_N) * WTM + (lane / WX) * 4;   /* + i * 4 * WY */
    const int colBase = (warp % WARPS_N) * WTN + (lane % WX) * 4;   /* + j * 4 * WX */

    __local float As[2][BK][BM + APAD] __attribute__((aligned(16)));
    __local float Bs[2][BK][BN] __attribute__((aligned(16)));

    /* float4 global loads need 16-byte aligned rows: K (for A) and N (for B) % 4 == 0. */
    const int vecA = (K % 4) == 0;
    const int vecB = (N % 4) == 0;

    /* Where each of this work-item's loads starts. Rows past M (and columns past N, in
       fetchB) are clamped to the last one: always a real address, and the values only
       reach rows and columns of C that are not stored. */
    int offA[LPTA], kB[LPTB], colB[LPTB];
    #pragma unroll
    for (int i = 0; i < LPTA; i++) {
        const int idx = t + i * NT;
        offA[i] = min(offM + idx / (BK / 4), M - 1) * K + KA(i);
    }
    #pragma unroll
    for (int i = 0; i < LPTB; i++) {
        const int idx = t + i * NT;
        kB[i] = idx / (BN / 4);
        colB[i] = offN + (idx % (BN / 4)) * 4;
    }

    float acc[TM][TN];
    #pragma unroll
    for (int i = 0; i < TM; i++)
        #pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = 0.0f;

    const int full = K / BK;
    const int steps = (K + BK - 1) / BK;
    float4 aNext[LPTA], bNext[LPTB];

    /* The first tiles; zero-filled past K if K < BK. */
    #pragma unroll
    for (int i = 0; i < LPTA; i++)
        aNext[i] = fetch4(A + offA[i], vecA, full == 0, K - KA(i));
    #pragma unroll
    for (int i = 0; i < LPTB; i++)
        bNext[i] = (full == 0 && kB[i] >= K) ? (float4)(0.0f)
                                             : fetchB(B + kB[i] * N, colB[i], N, vecB);
    store_tiles(&As[0][0][0], &Bs[0][0][0], aNext, bNext, t);
    barrier(CLK_LOCAL_MEM_FENCE);

    /* The main loop: every step whose successor is a full step, with aligned rows. The
       next tiles travel from global memory into registers (plain float4 loads at offsets
       fixed before the loop, no test) while this step's are multiplied, then go into the
       other buffer; one barrier per step. */
    int s = 0;
    if (vecA && vecB) {
        int offB[LPTB];
        #pragma unroll
        for (int i = 0; i < LPTB; i++)
            offB[i] = kB[i] * N + min(colB[i], N - 4);
        for (; s + 1 < full; s++) {
            const int k0 = (s + 1) * BK;
            const int buf = s & 1;
            #pragma unroll
            for (int i = 0; i < LPTA; i++)
                aNext[i] = *(const __global float4*)(A + offA[i] + k0);
            #pragma unroll
            for (int i = 0; i < LPTB; i++)
                bNext[i] = *(const __global float4*)(B + offB[i] + k0 * N);
            multiply(&As[buf][0][0], &Bs[buf][0][0], rowBase, colBase, acc);
            store_tiles(&As[buf ^ 1][0][0], &Bs[buf ^ 1][0][0], aNext, bNext, t);
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
#if UNALIGNED
    /* The same for rows that are not 16-byte aligned: loads of four values where needed. */
    for (; s + 1 < full; s++) {
        const int k0 = (s + 1) * BK;
        const int buf = s & 1;
        #pragma unroll
        for (int i = 0; i < LPTA; i++)
            aNext[i] = vecA ? *(const __global float4*)(A + offA[i] + k0) : vload4(0, A + offA[i] + k0);
        #pragma unroll
        for (int i = 0; i < LPTB; i++)
            bNext[i] = fetchB(B + (k0 + kB[i]) * N, colB[i], N, vecB);
        multiply(&As[buf][0][0], &Bs[buf][0][0], rowBase, colBase, acc);
        store_tiles(&As[buf ^ 1][0][0], &Bs[buf ^ 1][0][0], aNext, bNext, t);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#endif
    /* What is left: the last full step and a partial one after it (K % BK != 0), or every
       step where rows are not aligned and UNALIGNED is 0. Loads are zero-filled past K. */
    for (; s < steps; s++) {
        const int k0 = (s + 1) * BK;
        const int buf = s & 1;
        const int more = s + 1 < steps;
        if (more) {
            #pragma unroll
            for (int i = 0; i < LPTA; i++)
                aNext[i] = fetch4(A + offA[i] + k0, vecA, 1, K - (k0 + KA(i)));
            #pragma unroll
            for (int i = 0; i < LPTB; i++)
                bNext[i] = k0 + kB[i] >= K ? (float4)(0.0f)
                                           : fetchB(B + (k0 + kB[i]) * N, colB[i], N, vecB);
        }
        multiply(&As[buf][0][0], &Bs[buf][0][0], rowBase, colBase, acc);
        if (more)
            store_tiles(&As[buf ^ 1][0][0], &Bs[buf ^ 1][0][0], aNext, bNext, t);
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    /* Store the block: float4 stores where the row is aligned and inside C, scalar ones
       at the edges. */
    const int vecC = (N % 4) == 0;
    #pragma unroll
    for (int i = 0; i < TM / 4; i++) {
        #pragma unroll
        for (int r = 0; r < 4; r++) {
            const int row = offM + rowBase + i * 4 * WY + r;
            if (row >= M)
                continue;
            #pragma unroll
            for (int j = 0; j < TN / 4; j++) {
                const int col = offN + colBase + j * 4 * WX;
                const int m = 4 * i + r;
                const int n = 4 * j;
                __global float* p = C + row * N + col;
                if (vecC && col + 3 < N) {
                    *(__global float4*)p = (float4)(acc[m][n], acc[m][n + 1],
                                                    acc[m][n + 2], acc[m][n + 3]);
                } else {
                    if (col     < N) p[0] = acc[m][n];
                    if (col + 1 < N) p[1] = acc[m][n + 1];
                    if (col + 2 < N) p[2] = acc[m][n + 2];
                    if (col + 3 < N) p[3] = acc[m][n + 3];
                }
            }
        }
    }
}
