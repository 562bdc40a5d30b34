/*---
name = "private array written one past its end"
family = "transpose"
kernel = "t_private_oob"
args = ["WIDTH", "HEIGHT", "IN", "OUT"]
global = ["WIDTH", "HEIGHT"]
local = ["16", "16"]
---*/
__kernel void t_private_oob(int WIDTH, int HEIGHT, __global const float* IN, __global float* OUT)
{
    float acc[4];
    int x = get_global_id(0), y = get_global_id(1);
    for (int i = 0; i <= 4; i++)
        acc[i] = IN[y * WIDTH + x];
    OUT[x * HEIGHT + y] = acc[3];
}
