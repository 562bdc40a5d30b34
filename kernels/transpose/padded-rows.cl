/*---
name = "Padded tile, 32×8 work-items, 4 rows each"
family = "transpose"
kernel = "transpose_padded_rows"
args = ["WIDTH", "HEIGHT", "IN", "OUT"]
global = ["WIDTH", "cdiv(HEIGHT, TILE / ROWS)"]
local = ["TILE", "ROWS"]
sizes = ["TILE % ROWS == 0", "L0 == TILE", "L1 == ROWS"]
[defines]
TILE = 32
ROWS = 8
[allowed]
TILE = [16, 32]
ROWS = [1, 2, 4, 8, 16, 32]
[about]
source = "seed 001's padded 32×33 tile, moved as in NVIDIA's CUDA transpose sample (32×8 threads, 4 rows each)"
bug = ""
text = """The padded 32×(32+1) tile of the step before, moved by a quarter as many
work-items: a 32×8 work-group, each work-item copying TILE/ROWS = 4 elements in (rows ly,
ly+8, ly+16, ly+24 of the block) and 4 out. The reads and writes stay coalesced and the
padding keeps the column reads free of bank conflicts; what changes is the work per
work-item. Its four loads are independent, so all four are in flight together, and the
index arithmetic, bounds checks and barrier are paid once per four elements. A 256-item
group also fits within any driver's reported limit, where the 32×32 group of the padded
step needs 1024."""
---*/

#ifndef TILE
#define TILE 32   /* the tile is TILE x TILE elements          */
#endif
#ifndef ROWS
#define ROWS 8    /* the work-group is TILE x ROWS work-items  */
#endif

__kernel void transpose_padded_rows(const int WIDTH, const int HEIGHT,
                                    const __global float* IN,
                                    __global float* OUT)
{
    const int lx = get_local_id(0);
    const int ly = get_local_id(1);
    const int bx = get_group_id(0) * TILE;   /* first column of the IN block */
    const int by = get_group_id(1) * TILE;   /* first row of the IN block    */

    /* Padded by one column: a walk down a tile column visits TILE different banks. */
    __local float tile[TILE][TILE + 1];

    /* Read: rows ly, ly + ROWS, ... of the block, column lx; each row of work-items
       reads TILE consecutive floats. */
    const int x = bx + lx;
    if (x < WIDTH) {
        #pragma unroll
        for (int r = ly; r < TILE; r += ROWS) {
            const int y = by + r;
            if (y < HEIGHT)
                tile[r][lx] = IN[y * WIDTH + x];
        }
    }

    barrier(CLK_LOCAL_MEM_FENCE);

    /* Write: block (bx, by) of IN is block (by, bx) of OUT; rows ly, ly + ROWS, ... of
       the OUT block, column lx, read down a column of the tile. */
    const int ox = by + lx;   /* column of OUT */
    if (ox < HEIGHT) {
        #pragma unroll
        for (int r = ly; r < TILE; r += ROWS) {
            const int oy = bx + r;   /* row of OUT */
            if (oy < WIDTH)
                OUT[oy * HEIGHT + ox] = tile[lx][r];
        }
    }
}
