/*---
name = "Tiled, padded local memory"
family = "transpose"
kernel = "transpose_tiled_padded"
args = ["WIDTH", "HEIGHT", "IN", "OUT"]
global = ["WIDTH", "HEIGHT"]
local = ["TILE", "TILE"]
sizes = ["L0 == TILE", "L1 == TILE"]
[defines]
TILE = 32
[allowed]
TILE = [8, 16, 32]
[about]
source = "seed 001 (gpu_shared_matrix_transpose), translated from CUDA to OpenCL"
bug = ""
text = """The tiled transpose with one change: the local tile is TILE×(TILE+1), one unused
column wider, as in seed 001. A tile row is now TILE+1 floats long, so the elements of a
tile column fall in different local-memory banks and the column reads no longer collide.
Global reads and writes stay coalesced, as in the tiled version. NVIDIA's driver reports a work-group limit
of 256 for this kernel (as for any kernel with a barrier) yet runs seed 001's 32×32 groups:
the explorer launches them and the result notes what the driver reported."""
---*/

#ifndef TILE
#define TILE 32   /* the tile is TILE x TILE and so is the work-group */
#endif

__kernel void transpose_tiled_padded(const int WIDTH, const int HEIGHT,
                                     const __global float* IN,
                                     __global float* OUT)
{
    const int lx = get_local_id(0);
    const int ly = get_local_id(1);
    const int bx = get_group_id(0) * TILE;   /* first column of the IN block */
    const int by = get_group_id(1) * TILE;   /* first row of the IN block    */

    /* The +1 column: tile[r][c] lies at r*(TILE+1) + c, so walking down a column
       steps TILE+1 floats and visits a different bank at every step. */
    __local float tile[TILE][TILE + 1];

    /* Read one row of the block per row of work-items: coalesced. */
    const int x = bx + lx;
    const int y = by + ly;
    if (x < WIDTH && y < HEIGHT)
        tile[ly][lx] = IN[y * WIDTH + x];

    /* The one barrier: the whole block is in local memory before anyone writes. */
    barrier(CLK_LOCAL_MEM_FENCE);

    /* Block (bx, by) of IN becomes block (by, bx) of OUT; write along rows of OUT
       (coalesced), reading a column of the tile (conflict-free thanks to the padding). */
    const int ox = by + lx;   /* column of OUT */
    const int oy = bx + ly;   /* row of OUT    */
    if (ox < HEIGHT && oy < WIDTH)
        OUT[oy * HEIGHT + ox] = tile[lx][ly];
}
