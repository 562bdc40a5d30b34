/*---
name = "Two groups per compute unit, edges apart"
family = "matmul"
kernel = "matmul_wave"
args = ["M", "N", "K", "A", "B", "C"]
global = [
    "(EDGE * max(N / BN, 1) + (1 - EDGE) * cdiv(N, BN)) * (BN / TN)",
    "(EDGE * (M / BM + cdiv(min(M % BM, 1) * cdiv(N, 32) + min(N % BN, 1) * cdiv(M - M % BM, 32), max(N / BN, 1))) + (1 - EDGE) * cdiv(M, BM)) * (BM / TM)",
]
local = ["BN / TN", "BM / TM"]
sizes = [
    "L0 * TN == BN", "L1 * TM == BM", "(L0 * L1) % 32 == 0",
    "(BM * BK) % (4 * L0 * L1) == 0", "(BN * BK) % (4 * L0 * L1) == 0",
    "BN % (WX * TN) == 0", "BM % ((32 / WX) * TM) == 0",
]
[defines]
BM = 128
BN = 128
BK = 8
TM = 16
TN = 8
WX = 4
GM = 8
APAD = 4
UNALIGNED = 0
EDGE = 0
AMAP = 0
[allowed]
BM = [32, 64, 128, 256]
BN = [32, 64, 128, 256]
BK = [4, 8, 16, 32]
TM = [4, 8, 16]
TN = [4, 8, 16]
WX = [2, 4, 8, 16, 32]
GM = [0, 1, 2, 4, 8, 16, 32]
APAD = [0, 4]
UNALIGNED = [0, 1, 3]
AMAP = [0, 1]
EDGE = [0, 1]
[[by_size]]
when = "CPU"
BM = 64
BN = 64
BK = 16
TM = 4
TN = 4
WX = 8
[[by_size]]
when = "cdiv(M, 128) * cdiv(N, 128) < 256"
BM = 64
BN = 128
BK = 16
TM = 8
TN = 8
WX = 8
[[by_size]]
when = "M % 128 <= 4 and N % 128 <= 4 and M % 128 + N % 128 > 0 and (N % 4 != 0 or K % 4 != 0)"
EDGE = 1
UNALIGNED = 3
[[by_size]]
when = "M % 128 <= 4 and N % 128 <= 4 and M % 128 + N % 128 > 0"
EDGE = 1
[[by_size]]
when = "N % 4 != 0 or K % 4 != 0"
UNALIGNED = 1
[about]
source = "the explorer's own"
bug = ""
text = """fast's loop, with two groups per compute unit and the edges apart. fast gives each
of 256 work-items an 8×16 block (a 128×256 tile) and compiles to 249 registers: its group
fills a compute unit's 65536 registers alone, so while it waits at its barrier the unit
idles. Here 128 work-items of 16×8 values share a 128×128 tile; at 231 registers two groups
fit in one unit, and while one waits the other's warps multiply. The reads of local memory
per multiply-add stay fast's (six float4s per 128); 16×8 rather than 8×16 takes 20 registers
fewer and ran about 2% faster. The edges: 4097 rows make 33 tiles of 128, so 4097³ is 1089
tiles, more than four rounds of the 264 groups that run at once, and a fifth round computes
one row and one column of C while most of the GPU waits. With EDGE = 1 only full tiles are
tiles (1024, as at 4096³) and the strips left below and beside them go to extra groups of 32
lines each (257 at 4097³), whose warps split K and add their parts in local memory. Timed
apart, the strips took 0.89 ms when each work-item walked all of K for its line: longer than
a round of tiles, so they ran past the tiles' end (4097³ at 0.89 of cuBLAS, 0.99 without
them); split four ways, 0.26 ms, inside the last round. The default takes EDGE where strips exist and are at
most four wide. Rows of A that are not 16-byte aligned (K % 4 != 0) load as aligned float4s
there (UNALIGNED = 3): a row of the tile spans three of them, and each value goes into local
memory at its column less the row's misalignment (A is stored transposed, one value at a
time, anyway), the values outside the tile into spare rows. B keeps four single loads per
float4 (two aligned loads shifted in registers were much slower). On an H100, three runs of
bench: 0.970–1.004 of cuBLAS at 4096³ (49.6–50.0 TFLOP/s; fast 0.935–0.971), 0.98–1.00 at
4000³, 1.02–1.04 at 4097³ (44.5–44.6 TFLOP/s; fast 0.88–0.90), 0.98–1.05 at 2048³ and
1.18–1.48 at 1024³ (below 256 tiles of 128×128 the default is a 64×128 tile of 8×8 blocks).
On a CPU device the default is a 64×64 tile of 4×4 blocks, without the strips and the loops
for unaligned rows: PoCL took 11 CPU-seconds to compile the 8×8 blocks at 100×36×257, 3 for
these, which also run faster there (512³: 88 ms, 454 ms)."""
---*/

#ifndef BM
#define BM 128    /* rows of C per work-group tile                             */
#endif
#ifndef BN
#define BN 128    /* columns of C per work-group tile                          */
#endif
#ifndef BK
#define BK 8      /* depth of the tiles staged in local memory                 */
#endif
#ifndef TM
#define TM 16     /* rows of C per work-item (a multiple of 4)                 */
#endif
#ifndef TN
#define TN 8      /* columns of C per work-item (a multiple of 4)              */
#endif
#ifndef WX
#define WX 4      /* work-items of a warp side by side along N                  */
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
#ifndef EDGE
#define EDGE 0    /* 1: full tiles only; the strips left over as dot products     */
#endif
#ifndef AMAP
#define AMAP 0    /* UNALIGNED 3: consecutive work-items load 0: a row, 1: a column of float4s */
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
#define FA (BK / 4 + 1)             /* aligned float4s a row of A's tile can span */
#define LPTF ((BM * FA + NT - 1) / NT) /* of them per work-item a step           */
#if UNALIGNED == 3
#define AJ 3                        /* spare rows of As before (and 4 after) the tile */
#else
#define AJ 0
#endif
#define AROWS (BK + (AJ ? 7 : 0))   /* rows of As, spare ones included           */

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
        /* Row by row, every other row backwards: each multiply-add shares an operand
           with the one before it, which the compiler then reads from its operand cache
           (on an H100, 2,184 operand reuses instead of 2,016, 0.5 % faster). */
        #pragma unroll
        for (int i = 0; i < TM; i++)
            #pragma unroll
            for (int jj = 0; jj < TN; jj++) {
                const int j = (i & 1) ? TN - 1 - jj : jj;
                acc[i][j] += aReg[i] * bReg[j];
            }
    }
}

/* The strips of C that the full tiles leave (EDGE = 1), in the groups after the last tile.
   A group takes 32 lines of a strip: below the tiles 32 columns, beside them 32 rows, each
   for up to four of the strip's rows (or columns) at a time. Its NT / 32 warps split K, so
   each work-item walks a part of K, with loads that never wait on a test (indices past the
   strip are clamped; those values are never stored), and the parts meet in local memory.
   Below the tiles a warp reads a row of B coalesced and A's values are one for all; beside
   them each work-item reads a row of A, and B's few columns are one for all. */
inline void edge_strips(const int M, const int N, const int K, const __global float* A,
                        const __global float* B, __global float* C, const int e, const int t,
                        __local float* part)
{
    const int Mi = (M / BM) * BM;
    const int Ni = (N / BN) * BN;
    const int below = M > Mi ? (N + 31) / 32 : 0;
    const int lane = t % 32;
    const int p = t / 32;
    const int kc = (K + NT / 32 - 1) / (NT / 32);
    const int kb = p * kc;
    const int ke = min(K, kb + kc);
    const int side = e >= below;
    const int line = (side ? e - below : e) * 32 + lane;
    const int lines = side ? Mi : N;
    const int l = min(line, lines - 1);
    const int first = side ? Ni : Mi;
    const int last = side ? N : M;
    for (int w0 = first; w0 < last; w0 += 4) {
        float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        if (!side) {
            const int r1 = min(w0 + 1, M - 1), r2 = min(w0 + 2, M - 1), r3 = min(w0 + 3, M - 1);
            #pragma unroll 8
            for (int k = kb; k < ke; k++) {
                const float b = B[k * N + l];
                acc[0] += A[w0 * K + k] * b;
                acc[1] += A[r1 * K + k] * b;
                acc[2] += A[r2 * K + k] * b;
                acc[3] += A[r3 * K + k] * b;
            }
        } else {
            const int c1 = min(w0 + 1, N - 1), c2 = min(w0 + 2, N - 1), c3 = min(w0 + 3, N - 1);
            #pragma unroll 8
            for (int k = kb; k < ke; k++) {
                const float a = A[l * K + k];
                acc[0] += a * B[k * N + w0];
                acc[1] += a * B[k * N + c1];
                acc[2] += a * B[k * N + c2];
                acc[3] += a * B[k * N + c3];
            }
        }
        #pragma unroll
        for (int r = 0; r < 4; r++)
            part[(p * 4 + r) * 32 + lane] = acc[r];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (p == 0 && line < lines) {
            #pragma unroll
            for (int r = 0; r < 4; r++) {
                float sum = 0.0f;
                for (int q = 0; q < NT / 32; q++)
                    sum += part[(q * 4 + r) * 32 + lane];
                if (w0 + r < last) {
                    if (side)
                        C[line * N + w0 + r] = sum;
                    else
                        C[(w0 + r) * N + line] = sum;
                }
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

__kernel __attribute__((reqd_work_group_size(RTSN, RTSM, 1)))
void matmul_wave(const int M, const int N, const int K,
                 const __global float* restrict A,
                 const __global float* restrict B,
                 __global float* restrict C)
{
    const int t = get_local_id(1) * RTSN + get_local_id(0);
    /* With EDGE, only full tiles are tiles: the thin strips of C below and beside them are
       the dot products of the groups after the last tile. */
    const int numN = EDGE ? N / BN : (int)get_num_groups(0);
    const int numM = EDGE ? M / BM : (int)get_num_groups(1);
    int pid = get_group_id(1) * get_num_groups(0) + get_group_id(0);
#if EDGE
    __local float part[NT * 4];
    if (pid >= numM * numN) {
        edge_strips(M, N, K, A, B, C, pid - numM * numN, t, part);
        return;
    }
#endif
    /* Which tile of C: consecutive groups walk bands GM tiles tall (as in warp), so what
       they read is still in the L2 cache when the next one needs it. */
    int gm = pid / numN;
    int gn = pid % numN;
    if (GM > 0) {
        const int band = GM * numN;
        const int first = (pid / band) * GM;
        const int tall = min(numM - first, GM);
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

    __local float As[2][AROWS][BM + APAD] __attribute__((aligned(16)));
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
    store_tiles(&As[0][AJ][0], &Bs[0][0][0], aNext, bNext, t);
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
            multiply(&As[buf][AJ][0], &Bs[buf][0][0], rowBase, colBase, acc);
            store_tiles(&As[buf ^ 1][AJ][0], &Bs[buf ^ 1][0][0], aNext, bNext, t);
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
#if UNALIGNED == 3
    /* Rows of A that are not 16-byte aligned (K % 4 != 0), in tiles full along N: A by
       aligned float4 loads only. A row of the tile spans FA aligned float4s; each of their
       values is stored (transposed, as A always is) at its column less the row's
       misalignment o, and the values outside the tile land in spare rows of As. o is the
       same every step (k0 is a multiple of 4). B is loaded as in the loop below. The last
       two full steps are left to the guarded loop, so no load passes the end of a row. */
    if (offN + BN <= N && full > 2) {
        int offF[LPTF], sF[LPTF];
        #pragma unroll
        for (int i = 0; i < LPTF; i++) {
            const int idx = min(t + i * NT, BM * FA - 1);
            const int m = AMAP ? idx % BM : idx / FA;
            const int p = AMAP ? idx / BM : idx % FA;
            const int base = min(offM + m, M - 1) * K;
            const int o = base & 3;
            offF[i] = base - o + ((p == FA - 1 && o == 0) ? 0 : 4 * p);
            sF[i] = (4 * p - o + AJ) * (BM + APAD) + m;
        }
        for (; s + 2 < full; s++) {
            const int k0 = (s + 1) * BK;
            const int buf = s & 1;
            float4 aF[LPTF];
            #pragma unroll
            for (int i = 0; i < LPTF; i++)
                aF[i] = *(const __global float4*)(A + offF[i] + k0);
            #pragma unroll
            for (int i = 0; i < LPTB; i++)
                bNext[i] = fetchB(B + (k0 + kB[i]) * N, colB[i], N, vecB);
            multiply(&As[buf][AJ][0], &Bs[buf][0][0], rowBase, colBase, acc);
            __local float* as = &As[buf ^ 1][0][0];
            #pragma unroll
            for (int i = 0; i < LPTF; i++) {
                if ((BM * FA) % NT != 0 && t + i * NT >= BM * FA)
                    continue;
                as[sF[i]] = aF[i].x;
                as[sF[i] + (BM + APAD)] = aF[i].y;
                as[sF[i] + 2 * (BM + APAD)] = aF[i].z;
                as[sF[i] + 3 * (BM + APAD)] = aF[i].w;
            }
            #pragma unroll
            for (int i = 0; i < LPTB; i++) {
                const int idx = t + i * NT;
                *(__local float4*)(&Bs[buf ^ 1][0][0] + (idx / (BN / 4)) * BN + (idx % (BN / 4)) * 4) = bNext[i];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
    }
#endif
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
        multiply(&As[buf][AJ][0], &Bs[buf][0][0], rowBase, colBase, acc);
        store_tiles(&As[buf ^ 1][AJ][0], &Bs[buf ^ 1][0][0], aNext, bNext, t);
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
        multiply(&As[buf][AJ][0], &Bs[buf][0][0], rowBase, colBase, acc);
        if (more)
            store_tiles(&As[buf ^ 1][AJ][0], &Bs[buf ^ 1][0][0], aNext, bNext, t);
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
