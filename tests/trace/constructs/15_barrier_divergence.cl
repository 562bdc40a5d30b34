/*---
name = "barrier only some work-items reach"
family = "transpose"
kernel = "t_diverge"
args = ["WIDTH", "HEIGHT", "IN", "OUT"]
global = ["WIDTH", "HEIGHT"]
local = ["16", "16"]
---*/
__kernel void t_diverge(int WIDTH, int HEIGHT, __global const float* IN, __global float* OUT)
{
    __local float tile[16][17];
    int lx = get_local_id(0), ly = get_local_id(1);
    int x = get_global_id(0), y = get_global_id(1);
    tile[ly][lx] = IN[y * WIDTH + x];
    if (lx < 8)
        barrier(CLK_LOCAL_MEM_FENCE);
    OUT[x * HEIGHT + y] = tile[ly][lx];
}
