/*---
name = "Tiled transpose, the tile read without transposing"
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
[about]
source = "our own test kernel: the catalog's kernel with one change"
bug = "Tiled transpose, the tile read without transposing"
text = "Tiled transpose, the tile read without transposing: a mutant the explanation of a wrong element is tested on."
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
        OUT[oy * HEIGHT + ox] = tile[ly][lx];
}
