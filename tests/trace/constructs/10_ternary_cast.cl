/*---
name = "ternary base and char* cast"
family = "transpose"
kernel = "t_tern"
args = ["WIDTH", "HEIGHT", "IN", "OUT"]
global = ["WIDTH", "HEIGHT"]
local = ["16", "16"]
---*/
__kernel void t_tern(int WIDTH, int HEIGHT, __global const float* IN, __global float* OUT)
{
    int x = get_global_id(0), y = get_global_id(1);
    __global float* dst = (WIDTH > 0) ? OUT : (__global float*)IN;
    __global const char* bytes = (__global const char*)IN;
    dst[x * HEIGHT + y] = *(__global const float*)(bytes + 4 * (y * WIDTH + x));
}
