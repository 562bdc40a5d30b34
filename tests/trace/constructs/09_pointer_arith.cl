/*---
name = "pointer arithmetic and *p++"
family = "transpose"
kernel = "t_ptr"
args = ["WIDTH", "HEIGHT", "IN", "OUT"]
global = ["WIDTH", "HEIGHT"]
local = ["16", "16"]
---*/
__kernel void t_ptr(int WIDTH, int HEIGHT, __global const float* IN, __global float* OUT)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (y != 0) return;
    __global const float* p = IN + x;
    __global float* q = OUT + x * HEIGHT;
    for (int r = 0; r < HEIGHT; r++) {
        *q++ = *p;
        p += WIDTH;
    }
}
