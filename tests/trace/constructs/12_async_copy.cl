/*---
name = "async_work_group_copy of rows into a local tile"
family = "transpose"
kernel = "t_async"
args = ["WIDTH", "HEIGHT", "IN", "OUT"]
global = ["WIDTH", "HEIGHT"]
local = ["16", "16"]
---*/
__kernel void t_async(int WIDTH, int HEIGHT, __global const float* IN, __global float* OUT)
{
    __local float tile[16 * 16];
    int lx = get_local_id(0), ly = get_local_id(1);
    int x0 = get_group_id(0) * 16, y0 = get_group_id(1) * 16;
    event_t ev = 0;
    for (int r = 0; r < 16; r++)
        ev = async_work_group_copy(tile + r * 16, IN + (y0 + r) * WIDTH + x0, 16, ev);
    wait_group_events(1, &ev);
    OUT[(x0 + ly) * HEIGHT + y0 + lx] = tile[lx * 16 + ly];
}
