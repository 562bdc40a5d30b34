/*---
name = "Tiled, local memory, with tx read from get_local_id(1)"
family = "matmul"
kernel = "matmul_tiled"
args = ["M", "N", "K", "A", "B", "C"]
global = ["N", "M"]
local = ["TS", "TS"]
sizes = ["L0 == TS", "L1 == TS"]
[defines]
TS = 16
[allowed]
TS = [8, 16, 32]
[about]
source = "our own test kernel: the catalog's kernel with one change (line 34)"
bug = "tx is read from get_local_id(1), as ty is: every work-item of a row writes the diagonal of the tiles"
text = """A work-group of TS×TS work-items computes a TS×TS tile of C. For each step along K
it copies a TS×TS tile of A and of B into local memory (each work-item fetches one element
of each), waits at a barrier, and then every work-item reads its row and column from the
fast local copy. Each element fetched from global memory is now used TS times instead of
once, so the traffic to global memory drops by a factor of TS."""
---*/

#ifndef TS
#define TS 16   /* tile size; the host passes -DTS=... and the work-group must be TS x TS */
#endif

__kernel void matmul_tiled(const int M, const int N, const int K,
                           const __global float* A,
                           const __global float* B,
                           __global float* C)
{
    /* Dimension 0 runs along the columns of C, so neighbouring work-items touch
       neighbouring addresses of B and C (coalesced accesses). */
    const int tx  = get_local_id(1);           /* column inside the tile */
    const int ty  = get_local_id(1);           /* row inside the tile    */
    const int col = get_group_id(0) * TS + tx; /* column of C            */
    const int row = get_group_id(1) * TS + ty; /* row of C               */

    /* One tile of A and one of B, shared by the whole work-group. */
    __local float Asub[TS][TS];
    __local float Bsub[TS][TS];

    float acc = 0.0f;

    /* Walk along K one tile at a time. cdiv(K, TS) tiles: the last one may stick
       out past K, M or N; the loads below fill the missing part with zeros, which
       add nothing to the sum. */
    const int numTiles = (K + TS - 1) / TS;
    for (int t = 0; t < numTiles; t++) {
        const int kA = t * TS + tx;   /* column of A this work-item fetches */
        const int kB = t * TS + ty;   /* row of B this work-item fetches    */
        Asub[ty][tx] = (row < M && kA < K) ? A[row * K + kA] : 0.0f;
        Bsub[ty][tx] = (kB < K && col < N) ? B[kB * N + col] : 0.0f;

        /* Barrier 1: nobody may read the tiles before every work-item has written
           its element into them. */
        barrier(CLK_LOCAL_MEM_FENCE);

        /* Multiply the two tiles: a row of Asub times a column of Bsub. All the
           reads come from local memory. */
        for (int k = 0; k < TS; k++)
            acc += Asub[ty][k] * Bsub[k][tx];

        /* Barrier 2: nobody may overwrite the tiles with the next step's data while
           a slower work-item is still reading them. */
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    /* The work-items of a partial tile at the edge computed with zeros; only the
       ones inside C store their result. */
    if (row < M && col < N)
        C[row * N + col] = acc;
}
