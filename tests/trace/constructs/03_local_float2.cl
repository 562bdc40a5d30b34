/*---
name = "local float2 components"
family = "transpose"
kernel = "t_pair"
args = ["WIDTH", "HEIGHT", "IN", "OUT"]
global = ["WIDTH", "HEIGHT"]
local = ["16", "16"]
---*/
__kernel void t_pair(int WIDTH, int HEIGHT, __global const float* IN, __global float* OUT)
{
    __local float2 pair[16 * 16];
    int lx = get_local_id(0), ly = get_local_id(1);
    int l = ly * 16 + lx;
    pair[l].x = IN[get_global_id(1) * WIDTH + get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    int ox = get_group_id(1) * 16 + lx, oy = get_group_id(0) * 16 + ly;
    OUT[oy * HEIGHT + ox] = pair[lx * 16 + ly].x;
}
