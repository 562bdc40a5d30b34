/*---
name = "2D register blocking, float4"
family = "matmul"
kernel = "matmul_reg2d"
args = ["M", "N", "K", "A", "B", "C"]
global = ["cdiv(N, WPTN)", "cdiv(M, WPTM)"]
local = ["TSN / WPTN", "TSM / WPTM"]
sizes = [
    "L0 * WPTN == TSN", "L1 * WPTM == TSM",
    "(TSM * TSK) % (4 * L0 * L1) == 0", "(TSN * TSK) % (4 * L0 * L1) == 0",
]
[defines]
TSM = 64
TSN = 128
TSK = 16
WPTM = 8
WPTN = 8
DBUF = 0
[allowed]
TSM = [32, 64, 128, 256]
TSN = [32, 64, 128, 256]
TSK = [4, 8, 16, 32]
WPTM = [4, 8, 16]
WPTN = [4, 8, 16]
DBUF = [0, 1]
[[by_size]]
when = "CPU"
TSN = 64
WPTM = 4
WPTN = 4
[about]
source = "after C. Nugteren's SGEMM tutorial (kernels 6 and 7: 2D register blocking, wider loads), cited by seed 000; written anew with edge handling"
bug = ""
text = """Each work-item computes a WPTM×WPTN block of C (8×8 = 64 results) held in registers,
and a 16×8 work-group covers a 64×128 tile. Per step along K, a work-item reads WPTM values
of A and WPTN values of B from local memory, as float4s, and does WPTM·WPTN multiply-adds with
them: 16 values read for 64 multiply-adds, where the tiled kernel reads 2 for each one. The
next tiles are fetched from global memory (as float4 where aligned) into registers while the
current ones are multiplied, so memory latency hides behind arithmetic; with DBUF = 1 they are
then stored into a second pair of local tiles, so one barrier per step along K suffices. The
defaults are the fastest of a sweep on an H200 that is good at both 1024³ and 4096³ (a
64×128 tile gives 1024³ enough work-groups to fill 132 compute units). On a CPU device the
default is a 64×64 tile of 4×4 blocks: PoCL compiles the 8×8 blocks' code for 4 CPU-seconds
at 100×36×257, these for 2."""
---*/

/* Defaults; the host passes every define with -D. */
#ifndef TSM
#define TSM 64      /* rows of C per work-group tile                      */
#endif
#ifndef TSN
#define TSN 128     /* columns of C per work-group tile                   */
#endif
#ifndef TSK
#define TSK 16      /* depth of the A and B tiles staged in local memory  */
#endif
#ifndef WPTM
#define WPTM 8      /* rows of C per work-item (a multiple of 4)          */
#endif
#ifndef WPTN
#define WPTN 8      /* columns of C per work-item (a multiple of 4)       */
#endif

#define RTSM (TSM / WPTM)                 /* work-items along M: local size 1 */
#define RTSN (TSN / WPTN)                 /* work-items along N: local size 0 */
#define NTHREADS (RTSM * RTSN)            /* work-items per group              */
#define LPTA ((TSM * TSK / 4) / NTHREADS) /* float4 loads of A per work-item   */
#define LPTB ((TSN * TSK / 4) / NTHREADS) /* float4 loads of B per work-item   */

#ifndef DBUF
#define DBUF 0      /* 1: two buffers of each tile in local memory, one barrier a step */
#endif
#define NBUF (DBUF ? 2 : 1)
#define APAD 4      /* padding of each row of the transposed A tile (keeps float4 alignment) */

/* Four neighbouring elements X[r][c .. c+3] of a rows x cols row-major matrix, zero where
   they fall outside it. `vec` says that every row starts 16-byte aligned (cols % 4 == 0),
   so a whole in-range group of four is one float4 load; at the right and bottom edges
   (or when cols is not a multiple of 4) it falls back to bounds-checked scalar loads. */
inline float4 load4(const __global float* X, const int rows, const int cols,
                    const int r, const int c, const int vec)
{
    float4 v = (float4)(0.0f);
    if (r < rows) {
        const __global float* p = X + r * cols + c;
        if (vec && c + 3 < cols) {
            v = *(const __global float4*)p;
        } else {
            if (c     < cols) v.x = p[0];
            if (c + 1 < cols) v.y = p[1];
            if (c + 2 < cols) v.z = p[2];
            if (c + 3 < cols) v.w = p[3];
        }
    }
    return v;
}

/* Registers -> local memory: the A tile transposed (four scalar stores per float4, into
   As[k][m], rows TSM + APAD floats long), the B tile as it is (one float4 store, Bs[k][n]). */
inline void store_tiles(__local float* As, __local float* Bs,
                        const float4* aNext, const float4* bNext, const int tid)
{
    #pragma unroll
    for (int i = 0; i < LPTA; i++) {
        const int idx = tid + i * NTHREADS;
        const int m = idx / (TSK / 4);
        const int k = (idx % (TSK / 4)) * 4;
        As[(k + 0) * (TSM + APAD) + m] = aNext[i].x;
        As[(k + 1) * (TSM + APAD) + m] = aNext[i].y;
        As[(k + 2) * (TSM + APAD) + m] = aNext[i].z;
        As[(k + 3) * (TSM + APAD) + m] = aNext[i].w;
    }
    #pragma unroll
    for (int i = 0; i < LPTB; i++) {
        const int idx = tid + i * NTHREADS;
        vstore4(bNext[i], 0, Bs + (idx / (TSN / 4)) * TSN + (idx % (TSN / 4)) * 4);
    }
}

__kernel __attribute__((reqd_work_group_size(RTSN, RTSM, 1)))
void matmul_reg2d(const int M, const int N, const int K,
                  const __global float* restrict A,
                  const __global float* restrict B,
                  __global float* restrict C)
{
    const int tx   = get_local_id(0);            /* 0 .. RTSN-1 */
    const int ty   = get_local_id(1);            /* 0 .. RTSM-1 */
    const int tid  = ty * RTSN + tx;             /* 0 .. NTHREADS-1 */
    const int offM = get_group_id(1) * TSM;      /* first row of this group's tile    */
    const int offN = get_group_id(0) * TSN;      /* first column of this group's tile */

    /* The A tile is stored transposed, Asub[k][m], so that for a given k the WPTM values
       of A a work-item needs lie next to each other and come in as float4s, just like the
       values of B in Bsub[k][n]. Each row of Asub is padded by 4 floats: the transposing
       stores of step 1 then spread over twice as many banks, and rows stay 16-byte aligned.
       With DBUF = 1 there are two of each tile: the group multiplies one while the next
       is stored into the other, so one barrier per step along K is enough. */
    __local float Asub[NBUF][TSK][TSM + APAD] __attribute__((aligned(16)));
    __local float Bsub[NBUF][TSK][TSN] __attribute__((aligned(16)));

    /* Rows of A (and of C) start 16-byte aligned only when K (and N) is a multiple of 4. */
    const int vecA = (K % 4) == 0;
    const int vecB = (N % 4) == 0;

    /* Which rows and columns of the tile this work-item owns. Not a solid 8x8 square:
       groups of four, 4*RTSM rows (4*RTSN columns) apart. For WPTN = 8 and RTSN = 16,
       work-item tx owns columns 4tx..4tx+3 and 64+4tx..64+4tx+3. Then, at each float4
       read of Bsub, the 16 work-items of a row read 256 consecutive bytes (no bank
       conflicts), and each float4 store of C is contiguous across the group too. */
    float acc[WPTM][WPTN];
    #pragma unroll
    for (int m = 0; m < WPTM; m++)
        #pragma unroll
        for (int n = 0; n < WPTN; n++)
            acc[m][n] = 0.0f;

    /* The next tiles in registers. The group walks each tile of A (TSM x TSK) and of B
       (TSK x TSN) in memory order, one float4 per work-item at a time, so neighbouring
       work-items read neighbouring addresses. */
    float4 aNext[LPTA];
    float4 bNext[LPTB];
    #pragma unroll
    for (int i = 0; i < LPTA; i++) {
        const int idx = tid + i * NTHREADS;
        aNext[i] = load4(A, M, K, offM + idx / (TSK / 4), (idx % (TSK / 4)) * 4, vecA);
    }
    #pragma unroll
    for (int i = 0; i < LPTB; i++) {
        const int idx = tid + i * NTHREADS;
        bNext[i] = load4(B, K, N, idx / (TSN / 4), offN + (idx % (TSN / 4)) * 4, vecB);
    }

    /* cdiv(K, TSK) steps along K. Elements past M, N or K were loaded as zeros, so they
       add nothing; this is how the kernel handles any size. */
    const int numTiles = (K + TSK - 1) / TSK;
    for (int t = 0; t < numTiles; t++) {
        const int buf = DBUF ? (t & 1) : 0;

        /* 1. Registers -> local memory: at every step with one buffer, only before the
              first step with two (later tiles are stored at step 4). Barrier 1: the
              tiles are complete before anyone reads them. */
        if (!DBUF || t == 0) {
            store_tiles(&Asub[buf][0][0], &Bsub[buf][0][0], aNext, bNext, tid);
            barrier(CLK_LOCAL_MEM_FENCE);
        }

        /* 2. Start fetching the following tiles from global memory. Nothing waits for
              these loads until they are stored to local memory below (or at the top of
              the next step), so they travel while the work-item does the arithmetic. */
        if (t + 1 < numTiles) {
            const int k0 = (t + 1) * TSK;
            #pragma unroll
            for (int i = 0; i < LPTA; i++) {
                const int idx = tid + i * NTHREADS;
                aNext[i] = load4(A, M, K, offM + idx / (TSK / 4), k0 + (idx % (TSK / 4)) * 4, vecA);
            }
            #pragma unroll
            for (int i = 0; i < LPTB; i++) {
                const int idx = tid + i * NTHREADS;
                bNext[i] = load4(B, K, N, k0 + idx / (TSN / 4), offN + (idx % (TSN / 4)) * 4, vecB);
            }
        }

        /* 3. Multiply the tiles. Per k: WPTM/4 + WPTN/4 float4 reads of local memory,
              then WPTM * WPTN multiply-adds on registers (an outer product). */
        #pragma unroll
        for (int k = 0; k < TSK; k++) {
            float aReg[WPTM];
            float bReg[WPTN];
            #pragma unroll
            for (int v = 0; v < WPTM / 4; v++) {
                const float4 a = *(const __local float4*)&Asub[buf][k][v * 4 * RTSM + ty * 4];
                aReg[4 * v + 0] = a.x;
                aReg[4 * v + 1] = a.y;
                aReg[4 * v + 2] = a.z;
                aReg[4 * v + 3] = a.w;
            }
            #pragma unroll
            for (int w = 0; w < WPTN / 4; w++) {
                const float4 b = *(const __local float4*)&Bsub[buf][k][w * 4 * RTSN + tx * 4];
                bReg[4 * w + 0] = b.x;
                bReg[4 * w + 1] = b.y;
                bReg[4 * w + 2] = b.z;
                bReg[4 * w + 3] = b.w;
            }
            #pragma unroll
            for (int m = 0; m < WPTM; m++)
                #pragma unroll
                for (int n = 0; n < WPTN; n++)
                    acc[m][n] += aReg[m] * bReg[n];
        }

        /* 4. With two buffers, the next tiles go into the one nobody reads in this step;
              barrier 2 makes them complete before the next step reads them. */
        if (DBUF && t + 1 < numTiles)
            store_tiles(&Asub[buf ^ 1][0][0], &Bsub[buf ^ 1][0][0], aNext, bNext, tid);

        /* Barrier 2: everyone has finished with this step's tiles before they are
           overwritten (and, with two buffers, the next ones are complete). */
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    /* Store the block: float4 stores where the row is aligned and the four columns are
       inside C, bounds-checked scalar stores at the edges. */
    const int vecC = (N % 4) == 0;
    #pragma unroll
    for (int v = 0; v < WPTM / 4; v++) {
        #pragma unroll
        for (int i = 0; i < 4; i++) {
            const int row = offM + v * 4 * RTSM + ty * 4 + i;
            if (row >= M)
                continue;
            #pragma unroll
            for (int w = 0; w < WPTN / 4; w++) {
                const int col = offN + w * 4 * RTSN + tx * 4;
                const int m = 4 * v + i;
                const int n = 4 * w;
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
