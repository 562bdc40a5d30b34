/*---
name = "Tiled: the tile and its halo in local memory"
family = "stencil"
kernel = "stencil_tiled"
args = ["WIDTH", "HEIGHT", "IN", "OUT"]
global = ["WIDTH", "HEIGHT"]
local = ["TS", "TS"]
sizes = ["L0 == TS", "L1 == TS"]
[defines]
TS = 16
[allowed]
TS = [8, 16, 32]
[about]
source = "the explorer's own, after the shared-memory tiles of seeds 001 and 003"
bug = ""
text = """A TS×TS work-group computes a TS×TS block of OUT, which needs a (TS+2)×(TS+2) block
of IN: the tile plus a halo one pixel wide on every side, corners included. The group first
copies that block into local memory: the (TS+2)² elements are numbered row by row and work-item
i loads elements i, i + TS², ..., so neighbouring work-items read neighbouring addresses
(coalesced) and the few work-items left over after the first pass load the rest of the halo.
Halo pixels outside the image are clamped to the edge as they are loaded. A barrier then waits
for the whole block before anyone reads it: without it a work-item can read a halo element
its neighbour has not written yet. Work-items whose pixel lies outside the image (the last
groups at sizes that are not multiples of TS) still help to load and still reach the barrier;
they only skip the final write."""
---*/

#ifndef TS
#define TS 16   /* the work-group and the output block are TS x TS */
#endif
#define TILE_W (TS + 2)   /* the block of IN: the tile and a one-pixel halo */

__kernel void stencil_tiled(const int WIDTH, const int HEIGHT,
                            const __global float* IN,
                            __global float* OUT)
{
    __local float tile[TILE_W][TILE_W];

    const int lx = get_local_id(0);
    const int ly = get_local_id(1);
    const int x0 = get_group_id(0) * TS - 1;   /* IN column of tile[.][0] */
    const int y0 = get_group_id(1) * TS - 1;   /* IN row of tile[0][.]    */

    /* (TS+2)^2 elements, TS^2 work-items: one pass, then a second for the rest. */
    for (int i = ly * TS + lx; i < TILE_W * TILE_W; i += TS * TS) {
        const int ty = i / TILE_W;
        const int tx = i % TILE_W;
        const int gx = clamp(x0 + tx, 0, WIDTH - 1);
        const int gy = clamp(y0 + ty, 0, HEIGHT - 1);
        tile[ty][tx] = IN[gy * WIDTH + gx];
    }

    /* Every element of the block is in local memory before anyone reads it. */
    barrier(CLK_LOCAL_MEM_FENCE);

    const int x = x0 + 1 + lx;
    const int y = y0 + 1 + ly;
    if (x < WIDTH && y < HEIGHT) {
        /* The pixel sits at tile[ly + 1][lx + 1]; its neighbours all around it. */
        const float up = tile[ly][lx] + 2.0f * tile[ly][lx + 1] + tile[ly][lx + 2];
        const float mid = tile[ly + 1][lx] + 2.0f * tile[ly + 1][lx + 1] + tile[ly + 1][lx + 2];
        const float down = tile[ly + 2][lx] + 2.0f * tile[ly + 2][lx + 1] + tile[ly + 2][lx + 2];
        OUT[y * WIDTH + x] = (up + 2.0f * mid + down) * (1.0f / 16.0f);
    }
}
