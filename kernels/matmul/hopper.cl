/*---
name = "Asynchronous copies, a pipeline of tiles"
family = "matmul"
kernel = "matmul_hopper"
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
BK = 8
TM = 8
TN = 8
WX = 8
GM = 8
ST = 3
ASYNC = 1
[allowed]
BM = [32, 64, 128, 256]
BN = [32, 64, 128, 256]
BK = [4, 8, 16, 32]
TM = [4, 8, 16]
TN = [4, 8, 16]
WX = [2, 4, 8, 16, 32]
GM = [0, 1, 2, 4, 8, 16, 32]
ST = [2, 3, 4]
ASYNC = [0, 1]
[[by_size]]
when = "CPU"
BM = 64
BN = 64
BK = 16
TM = 4
TN = 4
[about]
source = "the explorer's own; the multi-stage copy pipeline of CUTLASS-style GEMMs, in OpenCL C"
bug = ""
text = """warp's tiles and order, with the copies of the next tiles taken out of the registers.
warp loads the next step's tiles into registers while it multiplies and stores them to local
memory afterwards: 16 more live registers, 181 in all, one work-group per compute unit, and
every warp waits at the same barrier. Here ST buffers of each tile form a ring: the tiles
of step t + ST - 1 are requested while step t is multiplied, straight from global memory into
local memory (on NVIDIA an asynchronous copy, cp.async, that holds no register; elsewhere an
ordinary load and store), and a step waits only for its own copies. A stays row by row in
local memory, as it is in global memory, so both tiles are read with float4: four steps
along K of one row of A at a time. A work-item's rows are spaced by the warp's height, so the
rows a warp reads at once are neighbours and fall in different banks (a row is BK + 4 floats
long). One barrier per step. Measured on an H100 it is slower than warp, not faster:
0.72 of cuBLAS at 4096³ (BK = 16, ST = 2: 0.80; warp 0.89). The copies work (without them,
ASYNC = 0, it runs at 0.44), but it still compiles to 150–209 registers, so one work-group
per compute unit, and the four float4 reads of A per four steps need 32 registers more than
warp's transposed A. Not a step of the ladder: an example of cp.async from OpenCL C. On a
CPU device the default is a 64×64 tile of 4×4 blocks, which PoCL compiles in half the time."""
---*/

#ifndef BM
#define BM 128    /* rows of C per work-group tile                              */
#endif
#ifndef BN
#define BN 128    /* columns of C per work-group tile                           */
#endif
#ifndef BK
#define BK 8      /* depth of one step along K                                  */
#endif
#ifndef TM
#define TM 8      /* rows of C per work-item                                    */
#endif
#ifndef TN
#define TN 8      /* columns of C per work-item (a multiple of 4)               */
#endif
#ifndef WX
#define WX 8      /* work-items of a warp side by side along N                   */
#endif
#ifndef GM
#define GM 8      /* tile rows of C a band of consecutive groups walks (0: plain) */
#endif
#ifndef ST
#define ST 3      /* steps along K in flight: buffers of each tile in the ring    */
#endif
#ifndef ASYNC
#define ASYNC 1   /* 1: NVIDIA's asynchronous global-to-local copy where it exists */
#endif

#define WY (32 / WX)                /* work-items of a warp along M             */
#define WTM (WY * TM)               /* rows of a warp's tile of C               */
#define WTN (WX * TN)               /* columns of a warp's tile of C            */
#define WARPS_N (BN / WTN)          /* warps side by side along N               */
#define NT ((BN / TN) * (BM / TM))  /* work-items per group                     */
#define AS (BK + 4)                 /* floats per row of A in local memory      */
#define CPA (BM * BK / 4 / NT)      /* float4 copies of A per work-item a step  */
#define CPB (BK * BN / 4 / NT)      /* float4 copies of B per work-item a step  */

/* The trace's own builds (they define EXPLORER_TRACE) take the load-and-store path,
   so that every copy into local memory is recorded. */
#if ASYNC && defined(__NV_CL_C_VERSION) && !defined(EXPLORER_TRACE)
#define USE_CP_ASYNC 1
#else
#define USE_CP_ASYNC 0
#endif

/* 16 bytes from global to local memory. On NVIDIA the copy runs on its own (cp.async, the
   L1 cache bypassed) and is waited for with wait_copies; elsewhere it is a load and a store. */
inline void copy16(__local float* dst, const __global float* src)
{
#if USE_CP_ASYNC
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n"
                 :: "r"((uint)(size_t)dst), "l"(src) : "memory");
#else
    *(__local float4*)dst = *(const __global float4*)src;
#endif
}

/* Four floats from four addresses (a row that is not 16-byte aligned, or clamped columns). */
inline void copy4x1(__local float* dst, const __global float* p0, const __global float* p1,
                    const __global float* p2, const __global float* p3)
{
#if USE_CP_ASYNC
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n"
                 "cp.async.ca.shared.global [%0+4], [%2], 4;\n"
                 "cp.async.ca.shared.global [%0+8], [%3], 4;\n"
                 "cp.async.ca.shared.global [%0+12], [%4], 4;\n"
                 :: "r"((uint)(size_t)dst), "l"(p0), "l"(p1), "l"(p2), "l"(p3) : "memory");
#else
    *(__local float4*)dst = (float4)(*p0, *p1, *p2, *p3);
#endif
}

/* Closes this step's group of copies (each step is one group, even an empty one). */
inline void commit_copies(void)
{
#if USE_CP_ASYNC
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

/* Waits until at most ST - 2 groups of this work-item's copies are in flight: the copies of
   the step about to be multiplied have arrived. */
inline void wait_copies(void)
{
#if USE_CP_ASYNC
    asm volatile("cp.async.wait_group %0;\n" :: "n"(ST - 2) : "memory");
#endif
}

/* Four values from p on, zero past `left` (the edges: K or N not a multiple of 4, or the
   last step along K). */
inline float4 edge4(const __global float* p, const int left)
{
    float4 v = (float4)(0.0f);
    if (left > 0) v.x = p[0];
    if (left > 1) v.y = p[1];
    if (left > 2) v.z = p[2];
    if (left > 3) v.w = p[3];
    return v;
}

/* The tiles of the step starting at depth k0 into ring buffer `buf`. Rows past M and columns
   past N are read clamped to the last one (their results are never stored). `full`: the step
   lies inside K, so only the last step along K takes the checked path; `vec`: rows are 16-byte
   aligned (K % 4 == 0 and N % 4 == 0), else each float is copied on its own. */
inline void copy_step(__local float* As, __local float* Bs,
                      const __global float* A, const __global float* B,
                      const int offM, const int offN, const int M, const int N, const int K,
                      const int k0, const int tid, const int full, const int vec)
{
    #pragma unroll
    for (int i = 0; i < CPA; i++) {
        const int idx = tid + i * NT;
        const int m = idx / (BK / 4);
        const int k = (idx % (BK / 4)) * 4;
        const __global float* src = A + min(offM + m, M - 1) * K + k0 + k;
        __local float* dst = As + m * AS + k;
        if (full && vec)
            copy16(dst, src);
        else if (full)
            copy4x1(dst, src, src + 1, src + 2, src + 3);
        else
            *(__local float4*)dst = edge4(src, K - (k0 + k));
    }
    #pragma unroll
    for (int i = 0; i < CPB; i++) {
        const int idx = tid + i * NT;
        const int k = idx / (BN / 4);
        const int n = (idx % (BN / 4)) * 4;
        __local float* dst = Bs + k * BN + n;
        const __global float* row = B + (k0 + k) * N;
        if (full && vec) {
            copy16(dst, row + min(offN + n, N - 4));
        } else if (full) {
            const int c = offN + n;
            copy4x1(dst, row + min(c, N - 1), row + min(c + 1, N - 1), row + min(c + 2, N - 1),
                    row + min(c + 3, N - 1));
        } else if (k0 + k < K) {
            const int col = min(offN + n, N - 1);
            *(__local float4*)dst = edge4(row + col, N - col);
        } else {
            *(__local float4*)dst = (float4)(0.0f);
        }
    }
}

__kernel __attribute__((reqd_work_group_size(BN / TN, BM / TM, 1)))
void matmul_hopper(const int M, const int N, const int K,
                   const __global float* restrict A,
                   const __global float* restrict B,
                   __global float* restrict C)
{
    const int tid = get_local_id(1) * (BN / TN) + get_local_id(0);
    /* Groups in bands GM tiles tall, as in warp: what they read stays in the L2 cache. */
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

    /* Warp (w) of the group, lane (lm, ln) of the warp. The work-item's rows are
       rowBase + r * WY: the WY rows a warp reads at once are neighbours. Its columns are
       colBase + j * 4 * WX + 0..3. */
    const int warp = tid / 32;
    const int lane = tid % 32;
    const int rowBase = (warp / WARPS_N) * WTM + lane / WX;
    const int colBase = (warp % WARPS_N) * WTN + (lane % WX) * 4;

    __local float As[ST][BM * AS] __attribute__((aligned(16)));
    __local float Bs[ST][BK * BN] __attribute__((aligned(16)));

    /* float4 copies need 16-byte aligned rows (K % 4 and N % 4 == 0) and N >= 4. */
    const int vec = (K % 4) == 0 && (N % 4) == 0 && N >= 4;
    const int full = K / BK;
    const int steps = (K + BK - 1) / BK;

    float acc[TM][TN];
    #pragma unroll
    for (int i = 0; i < TM; i++)
        #pragma unroll
        for (int j = 0; j < TN; j++)
            acc[i][j] = 0.0f;

    /* The ring starts with ST - 1 steps requested. */
    #pragma unroll
    for (int s = 0; s < ST - 1; s++) {
        if (s < steps)
            copy_step(As[s], Bs[s], A, B, offM, offN, M, N, K, s * BK, tid, s < full, vec);
        commit_copies();
    }

    for (int t = 0; t < steps; t++) {
        /* Step t's copies are here (this work-item's by the wait, everyone's by the
           barrier), and everyone has finished step t - 1, whose buffer is refilled next. */
        wait_copies();
        barrier(CLK_LOCAL_MEM_FENCE);
        const int next = t + ST - 1;
        if (next < steps)
            copy_step(As[next % ST], Bs[next % ST], A, B, offM, offN, M, N, K, next * BK, tid,
                      next < full, vec);
        commit_copies();

        const __local float* a = As[t % ST];
        const __local float* b = Bs[t % ST];
        #pragma unroll
        for (int k = 0; k < BK; k += 4) {
            float4 aq[TM];
            #pragma unroll
            for (int i = 0; i < TM; i++)
                aq[i] = *(const __local float4*)&a[(rowBase + i * WY) * AS + k];
            #pragma unroll
            for (int q = 0; q < 4; q++) {
                float bReg[TN];
                #pragma unroll
                for (int j = 0; j < TN / 4; j++) {
                    const float4 v =
                        *(const __local float4*)&b[(k + q) * BN + colBase + j * 4 * WX];
                    bReg[4 * j + 0] = v.x;
                    bReg[4 * j + 1] = v.y;
                    bReg[4 * j + 2] = v.z;
                    bReg[4 * j + 3] = v.w;
                }
                #pragma unroll
                for (int i = 0; i < TM; i++) {
                    const float av = q == 0 ? aq[i].x : q == 1 ? aq[i].y : q == 2 ? aq[i].z
                                                                                : aq[i].w;
                    #pragma unroll
                    for (int j = 0; j < TN; j++)
                        acc[i][j] += av * bReg[j];
                }
            }
        }
    }

    /* Store the block: float4 stores where the row is aligned and inside C, scalar ones at
       the edges. */
    const int vecC = (N % 4) == 0;
    #pragma unroll
    for (int i = 0; i < TM; i++) {
        const int row = offM + rowBase + i * WY;
        if (row >= M)
            continue;
        #pragma unroll
        for (int j = 0; j < TN / 4; j++) {
            const int col = offN + colBase + j * 4 * WX;
            __global float* p = C + row * N + col;
            if (vecC && col + 3 < N) {
                *(__global float4*)p = (float4)(acc[i][4 * j], acc[i][4 * j + 1],
                                                acc[i][4 * j + 2], acc[i][4 * j + 3]);
            } else {
                if (col     < N) p[0] = acc[i][4 * j];
                if (col + 1 < N) p[1] = acc[i][4 * j + 1];
                if (col + 2 < N) p[2] = acc[i][4 * j + 2];
                if (col + 3 < N) p[3] = acc[i][4 * j + 3];
            }
        }
    }
}
