/*---
name = "scalar __local variable"
family = "transpose"
kernel = "t_lscalar"
args = ["WIDTH", "HEIGHT", "IN", "OUT"]
global = ["WIDTH", "HEIGHT"]
local = ["16", "16"]
---*/
__kernel void t_lscalar(int WIDTH, int HEIGHT, __global const float* IN, __global float* OUT)
{
    __local int stride;
    if (get_local_id(0) == 0 && get_local_id(1) == 0)
        stride = HEIGHT;
    barrier(CLK_LOCAL_MEM_FENCE);
    int x = get_global_id(0), y = get_global_id(1);
    OUT[x * stride + y] = IN[y * WIDTH + x];
}
