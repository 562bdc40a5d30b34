/*---
name = "helper with a forward prototype"
family = "transpose"
kernel = "t_proto"
args = ["WIDTH", "HEIGHT", "IN", "OUT"]
global = ["WIDTH", "HEIGHT"]
local = ["16", "16"]
---*/
float fetch(__global const float* m, int row, int col, int w);
__kernel void t_proto(int WIDTH, int HEIGHT, __global const float* IN, __global float* OUT)
{
    int x = get_global_id(0), y = get_global_id(1);
    OUT[x * HEIGHT + y] = fetch(IN, y, x, WIDTH);
}
float fetch(__global const float* m, int row, int col, int w)
{
    return m[row * w + col];
}
