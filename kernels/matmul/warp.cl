/*---
name = "Warp tiles, unguarded interior, double-buffered"
family = "matmul"
kernel = "matmul_warp"
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
BN = 128
BK = 16
TM = 8
TN = 8
WX = 8
GM = 8
[allowed]
BM = [32, 64, 128, 256]
BN = [32, 64, 128, 256]
BK = [4, 8, 16, 32]
TM = [4, 8, 16]
TN = [4, 8, 16]
WX = [2, 4, 8, 16, 32]
GM = [0, 1, 2, 4, 8, 16, 32]
[[by_size]]
when = "CPU"
BM = 64
BN = 64
TM = 4
TN = 4
[[by_size]]
when = "cdiv(M, 128) * cdiv(N, 128) < 256 or N % 4 != 0"
BM = 64
BN = 64
[about]
source = "the explorer's own; the warp tiling of S. Boehm's CUDA SGEMM ladder, in OpenCL C"
bug = ""
text = """reg2d's TM×TN block of C per work-item and float4 local reads, with three changes.
Warp tiles: the 32 work-items of a warp form a (32/WX)×WX patch, and their blocks make one
compact (32/WX·TM)×(WX·TN) tile of C (32×64 by default), so per step along K a warp reads
only 32 values of A and 64 of B from local memory (reg2d's warps read a whole 128-wide row
of B). Unguarded interior: rows past M and columns past N are read from the last row or
column instead (their results are never stored), so the loads of every full step along K
are straight float4 loads with no test at all; only the last, partial step along K checks
and zero-fills. One barrier per step: two buffers of each tile in local memory; the next
tiles travel from global memory into registers while the current ones are multiplied, and
go into the other buffer afterwards. And an order of tiles: consecutive work-groups walk
bands GM tiles tall, so what they read is still in the L2 cache when the next one needs it.
On an H100: 0.87–0.89 of cuBLAS at 4096³ (reg2d 0.83–0.85). At 1024³ a 128×128 tile gives
only 64 work-groups for 132 compute units, so below 256 tiles of 128×128 (and where rows of
B are not 16-byte aligned) the default tile is 64×64: at 1024³ and 1000³ that runs at
cuBLAS's speed. The default compiles to 181 registers per work-item, one 256-item group per compute unit;
NVIDIA's driver accepts -cl-nv-maxrregcount and ignores it, and a 128×256 tile (TN = 16,
BK = 8) is the best measured at 4096³, 0.89. On a CPU device the default is a 64×64 tile of
4×4 blocks: PoCL compiles the 8×8 blocks' code for 3 CPU-seconds at 100×36×257, these in
under 2, and runs them faster."""
---*/

#ifndef BM
#define BM 128    /* rows of C per work-group tile                             */
#endif
#ifndef BN
#define BN 128    /* columns of C per work-group tile                          */
#endif
#ifndef BK
#define BK 16     /* depth of the tiles staged in local memory                 */
#endif
#ifndef TM
#define TM 8      /* rows of C per work-item (a multiple of 4)                 */
#endif
#ifndef TN
#define TN 8      /* columns of C per work-item (a multiple of 4)              */
#endif
#ifndef WX
#define WX 8      /* work-items of a warp side by side along N                  */
#endif

#ifndef GM
#define GM 8      /* tile rows of C a band of consecutive groups walks (0: plain order) */
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
#define APAD 4                      /* keeps transposed A rows 16-byte aligned */

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
   one instead (their results are never stored); `vec` says N % 4 == 0, so a float4 that
   starts inside the row ends inside it. */
inline float4 fetchB(const __global float* row, const int col, const int N, const int vec)
{
    if (vec)
        return *(const __global float4*)(row + min(col, N - 4));
    return (float4)(row[min(col, N - 1)], row[min(col + 1, N - 1)],
                    row[min(col + 2, N - 1)], row[min(col + 3, N - 1)]);
}

/* One step's tiles, global memory -> registers, starting at depth k0. A's float4s run
   along K (a row of A); B's along N. With `guard`, values past K are zeros. */
inline void load_tiles(const __global float* A, const __global float* B,
                       const int* offA, const int* kA, const int* kB, const int* colB,
                       const int k0, const int K, const int N,
                       const int vecA, const int vecB, const int guard,
                       float4* aNext, float4* bNext)
{
    #pragma unroll
    for (int i = 0; i < LPTA; i++)
        aNext[i] = fetch4(A + offA[i] + k0, vecA, guard, K - (k0 + kA[i]));
    #pragma unroll
    for (int i = 0; i < LPTB; i++) {
        if (guard && k0 + kB[i] >= K)
            bNext[i] = (float4)(0.0f);
        else
            bNext[i] = fetchB(B + (k0 + kB[i]) * N, colB[i], N, vecB);
    }
}

/* Registers -> local memory: A transposed (As[k][m]), B as it is (Bs[k][n]). */
inline void store_tiles(__local float* As, __local float* Bs,
                        const float4* aNext, const float4* bNext, const int tid)
{
    #pragma unroll
    for (int i = 0; i < LPTA; i++) {
        const int idx = tid + i * NT;
        const int m = idx / (BK / 4);
        const int k = (idx % (BK / 4)) * 4;
        As[(k + 0) * (BM + APAD) + m] = aNext[i].x;
        As[(k + 1) * (BM + APAD) + m] = aNext[i].y;
        As[(k + 2) * (BM + APAD) + m] = aNext[i].z;
        As[(k + 3) * (BM + APAD) + m] = aNext[i].w;
    }
    #pragma unroll
    for (int i = 0; i < LPTB; i++) {
        const int idx = tid + i * NT;
        vstore4(bNext[i], 0, Bs + (idx / (BN / 4)) * BN + (idx % (BN / 4)) * 4);
    }
}

__kernel __attribute__((reqd_work_group_size(RTSN, RTSM, 1)))
void matmul_warp(const int M, const int N, const int K,
                 const __global float* restrict A,
                 const __global float* restrict B,
                 __global float* restrict C)
{
    const int tid = get_local_id(1) * RTSN + get_local_id(0);
    /* Which tile of C: groups are started in order of their number, row by row. Taken
       literally, the groups running at once would cover a few whole rows of tiles and
       need all of B; renumbered, they cover bands GM tiles tall, and the A and B they
       read stay in the L2 cache. */
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
    const int warp = tid / 32;
    const int lane = tid % 32;
    const int rowBase = (warp / WARPS_N) * WTM + (lane / WX) * 4;   /* + i * 4 * WY */
    const int colBase = (warp % WARPS_N) * WTN + (lane % WX) * 4;   /* + j * 4 * WX */

    __local float As[2][BK][BM + APAD] __attribute__((aligned(16)));
    __local float Bs[2][BK][BN] __attribute__((aligned(16)));

    /* float4 global loads need 16-byte aligned rows: K (for A) and N (for B) % 4 == 0. */
    const int vecA = (K % 4) == 0;
    const int vecB = (N % 4) == 0;

    /* Where each of this work-item's loads starts. Rows past M (and columns past N, in
       fetchB) are clamped to the last one: always a real address, and the values only
       reach rows and columns of C that are not stored, so the loop needs no bounds test
       for them. */
    int offA[LPTA], kA[LPTA], kB[LPTB], colB[LPTB];
    #pragma unroll
    for (int i = 0; i < LPTA; i++) {
        const int idx = tid + i * NT;
        kA[i] = (idx % (BK / 4)) * 4;
        offA[i] = min(offM + idx / (BK / 4), M - 1) * K + kA[i];
    }
    #pragma unroll
    for (int i = 0; i < LPTB; i++) {
        const int idx = tid + i * NT;
        kB[i] = idx / (BN / 4);
        colB[i] = offN + (idx % (BN / 4)) * 4;
    }

    float acc[TM][TN];
    #pragma unroll
    for (int i = 0; i < TM; i++)
        #pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = 0.0f;

    /* Full steps along K need no test; a last partial one is zero-filled past K. */
    const int full = K / BK;
    const int steps = (K + BK - 1) / BK;

    float4 aNext[LPTA], bNext[LPTB];
    if (full > 0)
        load_tiles(A, B, offA, kA, kB, colB, 0, K, N, vecA, vecB, 0, aNext, bNext);
    else
        load_tiles(A, B, offA, kA, kB, colB, 0, K, N, vecA, vecB, 1, aNext, bNext);
    store_tiles(&As[0][0][0], &Bs[0][0][0], aNext, bNext, tid);
    barrier(CLK_LOCAL_MEM_FENCE);

    for (int t = 0; t < steps; t++) {
        const int buf = t & 1;
        const int k0 = (t + 1) * BK;

        /* 1. The next step's tiles start their trip from global memory. */
        if (t + 1 < full)
            load_tiles(A, B, offA, kA, kB, colB, k0, K, N, vecA, vecB, 0, aNext, bNext);
        else if (t + 1 < steps)
            load_tiles(A, B, offA, kA, kB, colB, k0, K, N, vecA, vecB, 1, aNext, bNext);

        /* 2. Multiply this step's tiles: per k, TM/4 + TN/4 float4 reads of local memory
              and TM * TN multiply-adds. A warp reads WY distinct float4s of A and WX of
              B, side by side: no bank conflicts, the rest are broadcasts. */
        #pragma unroll
        for (int k = 0; k < BK; k++) {
            float aReg[TM], bReg[TN];
            #pragma unroll
            for (int i = 0; i < TM / 4; i++) {
                const float4 a = *(const __local float4*)&As[buf][k][rowBase + i * 4 * WY];
                aReg[4 * i + 0] = a.x;
                aReg[4 * i + 1] = a.y;
                aReg[4 * i + 2] = a.z;
                aReg[4 * i + 3] = a.w;
            }
            #pragma unroll
            for (int j = 0; j < TN / 4; j++) {
                const float4 b = *(const __local float4*)&Bs[buf][k][colBase + j * 4 * WX];
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

        /* 3. The next tiles go into the buffer nobody reads in this step; the barrier
              makes them complete, and this step's reads finished, before the next step. */
        if (t + 1 < steps)
            store_tiles(&As[buf ^ 1][0][0], &Bs[buf ^ 1][0][0], aNext, bNext, tid);
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
