/*---
name = "float4 component write"
family = "transpose"
kernel = "t_comp"
args = ["WIDTH", "HEIGHT", "IN", "OUT"]
global = ["WIDTH", "HEIGHT"]
local = ["16", "16"]
---*/
__kernel void t_comp(int WIDTH, int HEIGHT, __global const float* IN, __global float* OUT)
{
    int x = get_global_id(0), y = get_global_id(1);
    __global float4* out4 = (__global float4*)(OUT + x * HEIGHT + (y & ~3));
    if ((y & 3) == 0) out4[0].x = IN[y * WIDTH + x];
    if ((y & 3) == 1) out4[0].y = IN[y * WIDTH + x];
    if ((y & 3) == 2) out4[0].z = IN[y * WIDTH + x];
    if ((y & 3) == 3) out4[0].w = IN[y * WIDTH + x];
}
