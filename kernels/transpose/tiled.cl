/*---
name = "Tiled, local memory"
family = "transpose"
kernel = "transpose_tiled"
args = ["WIDTH", "HEIGHT", "IN", "OUT"]
global = ["WIDTH", "HEIGHT"]
local = ["TILE", "TILE"]
sizes = ["L0 == TILE", "L1 == TILE"]
[defines]
TILE = 32
[allowed]
TILE = [8, 16, 32]
[counterpart]
variant = "tiled-padded"
why = "padding the tile"
[about]
source = "seed 001 (gpu_shared_matrix_transpose), without its padding column"
bug = ""
text = """A work-group copies a TILE×TILE block of IN into local memory, reading rows, and
then writes it out to OUT, again along rows, reading the local tile down its columns. Both
global reads and global writes are now coalesced. But the tile has no padding: the elements
of a tile column are TILE floats apart, all in the same local-memory bank, so the column
reads are serialised (bank conflicts). NVIDIA's driver reports a work-group limit
of 256 for this kernel (as for any kernel with a barrier) yet runs seed 001's 32×32 groups:
the explorer launches them and the result notes what the driver reported."""
---*/

#ifndef TILE
#define TILE 32   /* the tile is TILE x TILE and so is the work-group */
#endif

__kernel void transpose_tiled(const int WIDTH, const int HEIGHT,
                              const __global float* IN,
                              __global float* OUT)
{
    const int lx = get_local_id(0);
    const int ly = get_local_id(1);
    const int bx = get_group_id(0) * TILE;   /* first column of the IN block */
    const int by = get_group_id(1) * TILE;   /* first row of the IN block    */

    /* No padding: tile[0][c], tile[1][c], ... lie TILE floats apart, in one bank. */
    __local float tile[TILE][TILE];

    /* Read one row of the block per row of work-items: coalesced. */
    const int x = bx + lx;
    const int y = by + ly;
    if (x < WIDTH && y < HEIGHT)
        tile[ly][lx] = IN[y * WIDTH + x];

    /* The one barrier: the whole block is in local memory before anyone writes. */
    barrier(CLK_LOCAL_MEM_FENCE);

    /* Block (bx, by) of IN becomes block (by, bx) of OUT. Work-item (lx, ly) writes
       row bx + ly, column by + lx of OUT: neighbouring work-items write neighbouring
       addresses (coalesced). The value is IN[by + lx][bx + ly] = tile[lx][ly]: a walk
       down a column of the tile, where the bank conflicts happen. */
    const int ox = by + lx;   /* column of OUT */
    const int oy = bx + ly;   /* row of OUT    */
    if (ox < HEIGHT && oy < WIDTH)
        OUT[oy * HEIGHT + ox] = tile[lx][ly];
}
