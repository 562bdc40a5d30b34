/*---
name = "private array indexed in bounds"
family = "transpose"
kernel = "t_private"
args = ["WIDTH", "HEIGHT", "IN", "OUT"]
global = ["WIDTH", "HEIGHT"]
local = ["16", "16"]
---*/
__kernel void t_private(int WIDTH, int HEIGHT, __global const float* IN, __global float* OUT)
{
    float acc[4];
    int x = get_global_id(0), y = get_global_id(1);
    for (int i = 0; i < 4; i++)
        acc[i] = 0.0f;
    acc[y & 3] = IN[y * WIDTH + x];
    OUT[x * HEIGHT + y] = acc[y & 3];
}
