/*---
name = "macro barrier and accessor macro"
family = "transpose"
kernel = "t_macro"
args = ["WIDTH", "HEIGHT", "IN", "OUT"]
global = ["WIDTH", "HEIGHT"]
local = ["16", "16"]
---*/
#define SYNC barrier(CLK_LOCAL_MEM_FENCE)
#define AT(m, row, col, w) m[(row) * (w) + (col)]
__kernel void t_macro(int WIDTH, int HEIGHT, __global const float* IN, __global float* OUT)
{
    __local float tile[16][17];
    int lx = get_local_id(0), ly = get_local_id(1);
    int x = get_group_id(0) * 16 + lx, y = get_group_id(1) * 16 + ly;
    tile[ly][lx] = AT(IN, y, x, WIDTH);
    SYNC;
    int ox = get_group_id(1) * 16 + lx, oy = get_group_id(0) * 16 + ly;
    AT(OUT, oy, ox, HEIGHT) = tile[lx][ly];
}
