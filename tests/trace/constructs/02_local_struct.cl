/*---
name = "local struct array"
family = "transpose"
kernel = "t_struct"
args = ["WIDTH", "HEIGHT", "IN", "OUT"]
global = ["WIDTH", "HEIGHT"]
local = ["16", "16"]
---*/
typedef struct { float v; int n; } cell_t;
__kernel void t_struct(int WIDTH, int HEIGHT, __global const float* IN, __global float* OUT)
{
    __local cell_t cells[16 * 16];
    int lx = get_local_id(0), ly = get_local_id(1);
    int x = get_global_id(0), y = get_global_id(1);
    cells[ly * 16 + lx].v = IN[y * WIDTH + x];
    barrier(CLK_LOCAL_MEM_FENCE);
    int ox = get_group_id(1) * 16 + lx, oy = get_group_id(0) * 16 + ly;
    OUT[oy * HEIGHT + ox] = cells[lx * 16 + ly].v;
}
