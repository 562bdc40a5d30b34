/*---
name = "copies started in a loop into rows of a 2-D tile, the first row never waited for"
family = "custom"
kernel = "k"
global = ["N"]
local = ["16"]
[sizes]
N = 64
[args.src]
buffer = "float"
count = "N"
access = "read"
[args.out]
buffer = "float"
count = "N"
contents = "zeros"
---*/
#define ROWS 4
__kernel void k(__global const float *src, __global float *out)
{
    __local float tiles[ROWS][4];
    event_t evs[ROWS];
    const size_t g = get_group_id(0), l = get_local_id(0);
    for (int r = 0; r < ROWS; r++)
        evs[r] = async_work_group_copy(tiles[r], src + g * 16 + r * 4, 4, 0);
    wait_group_events(ROWS - 1, evs + 1);
    
    out[g * 16 + l] = tiles[l & 3][l >> 2];
}
