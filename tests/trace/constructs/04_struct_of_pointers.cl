/*---
name = "private struct of pointers"
family = "transpose"
kernel = "t_views"
args = ["WIDTH", "HEIGHT", "IN", "OUT"]
global = ["WIDTH", "HEIGHT"]
local = ["16", "16"]
---*/
typedef struct { __global const float* src; __global float* dst; } views_t;
__kernel void t_views(int WIDTH, int HEIGHT, __global const float* IN, __global float* OUT)
{
    views_t v;
    v.src = IN;
    v.dst = OUT;
    int x = get_global_id(0), y = get_global_id(1);
    v.dst[x * HEIGHT + y] = v.src[y * WIDTH + x];
}
