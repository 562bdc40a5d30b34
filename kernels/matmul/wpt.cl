/*---
name = "More work per work-item"
family = "matmul"
kernel = "matmul_wpt"
args = ["M", "N", "K", "A", "B", "C"]
global = ["N", "cdiv(M, WPT)"]
local = ["TS", "max(1, TS / WPT)"]
sizes = ["TS % WPT == 0", "L0 == TS", "L1 * WPT == TS"]
[defines]
TS = 32
WPT = 8
[allowed]
TS = [8, 16, 32, 64]
WPT = [1, 2, 4, 8, 16, 32]
[about]
source = "after C. Nugteren's SGEMM tutorial (kernel 3, more work per thread), cited by seed 000"
bug = ""
text = """Still a TS×TS tile of C per work-group, but with TS/WPT times fewer work-items: each
one computes WPT elements of a column of the tile, WPT rows apart. A value read from the
B tile is kept in a register and reused for all WPT results, so there are fewer local-memory
reads per multiply-add and fewer work-items to schedule. Each work-item also issues WPT
independent multiply-adds in a row, which keeps the arithmetic units busy."""
---*/

#ifndef TS
#define TS 32        /* tile size: the work-group computes a TS x TS tile of C */
#endif
#ifndef WPT
#define WPT 8        /* work per work-item: results each work-item computes     */
#endif
#define RTS (TS / WPT)  /* rows of work-items in the group; rows apart of one item's results */

__kernel void matmul_wpt(const int M, const int N, const int K,
                         const __global float* A,
                         const __global float* B,
                         __global float* C)
{
    /* The work-group is TS x RTS work-items. Work-item (tx, ty) owns the column tx of
       the tile and its rows ty, ty + RTS, ty + 2*RTS, ... (WPT rows in all). Spreading
       the rows out, rather than taking WPT neighbouring rows, keeps every load and
       store below coalesced: at each step neighbouring work-items touch neighbouring
       columns. */
    const int tx   = get_local_id(0);
    const int ty   = get_local_id(1);
    const int col  = get_group_id(0) * TS + tx;   /* column of C       */
    const int row0 = get_group_id(1) * TS + ty;   /* first row of C    */

    __local float Asub[TS][TS];
    __local float Bsub[TS][TS];

    /* WPT running sums, in registers. */
    float acc[WPT];
    for (int w = 0; w < WPT; w++)
        acc[w] = 0.0f;

    const int numTiles = (K + TS - 1) / TS;
    for (int t = 0; t < numTiles; t++) {
        /* Load the two tiles: TS*TS elements each, RTS*TS work-items, so every
           work-item fetches WPT elements of each tile. Out-of-range elements are
           zero, so partial tiles at the edges add nothing. */
        const int kA = t * TS + tx;
        for (int w = 0; w < WPT; w++) {
            const int r   = ty + w * RTS;           /* row inside the tile */
            const int rowA = get_group_id(1) * TS + r;
            const int kB   = t * TS + r;
            Asub[r][tx] = (rowA < M && kA < K) ? A[rowA * K + kA] : 0.0f;
            Bsub[r][tx] = (kB < K && col < N) ? B[kB * N + col] : 0.0f;
        }
        barrier(CLK_LOCAL_MEM_FENCE);   /* both tiles are complete */

        /* One value of B, held in a register, serves WPT multiply-adds. */
        for (int k = 0; k < TS; k++) {
            const float b = Bsub[k][tx];
            for (int w = 0; w < WPT; w++)
                acc[w] += Asub[ty + w * RTS][k] * b;
        }
        barrier(CLK_LOCAL_MEM_FENCE);   /* everyone is done with the tiles */
    }

    /* Store the WPT results that fall inside C. */
    for (int w = 0; w < WPT; w++) {
        const int row = row0 + w * RTS;
        if (row < M && col < N)
            C[row * N + col] = acc[w];
    }
}
