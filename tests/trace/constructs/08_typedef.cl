/*---
name = "typedef'd index parameters"
family = "transpose"
kernel = "t_typedef"
args = ["WIDTH", "HEIGHT", "IN", "OUT"]
global = ["WIDTH", "HEIGHT"]
local = ["16", "16"]
---*/
typedef int index_t;
__kernel void t_typedef(index_t WIDTH, index_t HEIGHT, __global const float* IN, __global float* OUT)
{
    index_t x = get_global_id(0), y = get_global_id(1);
    OUT[x * HEIGHT + y] = IN[y * WIDTH + x];
}
