/*---
name = "vload4 and vstore4 with computed pointers"
family = "transpose"
kernel = "t_vec"
args = ["WIDTH", "HEIGHT", "IN", "OUT"]
global = ["WIDTH / 4", "HEIGHT / 4"]
local = ["4", "4"]
---*/
__kernel void t_vec(int WIDTH, int HEIGHT, __global const float* IN, __global float* OUT)
{
    int x4 = get_global_id(0) * 4, y4 = get_global_id(1) * 4;
    __global const float* src = IN + y4 * WIDTH + x4;
    float4 r0 = vload4(0, src), r1 = vload4(0, src + WIDTH);
    float4 r2 = vload4(0, src + 2 * WIDTH), r3 = vload4(0, src + 3 * WIDTH);
    vstore4((float4)(r0.x, r1.x, r2.x, r3.x), 0, OUT + (x4 + 0) * HEIGHT + y4);
    vstore4((float4)(r0.y, r1.y, r2.y, r3.y), 0, OUT + (x4 + 1) * HEIGHT + y4);
    vstore4((float4)(r0.z, r1.z, r2.z, r3.z), (x4 + 2) * HEIGHT / 4 + y4 / 4, OUT);
    vstore4((float4)(r0.w, r1.w, r2.w, r3.w), (x4 + 3) * HEIGHT / 4 + y4 / 4, OUT);
}
