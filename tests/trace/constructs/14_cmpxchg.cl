/*---
name = "atomic_cmpxchg claims each element once"
family = "transpose"
kernel = "t_cas"
args = ["WIDTH", "HEIGHT", "IN", "OUT"]
global = ["WIDTH", "HEIGHT"]
local = ["16", "16"]
---*/
__kernel void t_cas(int WIDTH, int HEIGHT, __global const float* IN, __global float* OUT)
{
    __local int claimed;
    int x = get_global_id(0), y = get_global_id(1);
    if (get_local_id(0) == 0 && get_local_id(1) == 0)
        claimed = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_cmpxchg(&claimed, 0, 1);
    OUT[x * HEIGHT + y] = IN[y * WIDTH + x];
}
