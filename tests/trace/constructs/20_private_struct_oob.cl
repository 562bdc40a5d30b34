/*---
name = "array member of a private struct written one past its end"
family = "transpose"
kernel = "t_struct_oob"
args = ["WIDTH", "HEIGHT", "IN", "OUT"]
global = ["WIDTH", "HEIGHT"]
local = ["16", "16"]
---*/
#define TAPS 4
typedef struct { float part[TAPS]; int used; } acc_t;

__kernel void t_struct_oob(int WIDTH, int HEIGHT, __global const float* IN, __global float* OUT)
{
    int x = get_global_id(0), y = get_global_id(1);
    acc_t acc;
    acc.used = TAPS;
    for (int t = 0; t <= TAPS; t++)
        acc.part[t] = IN[y * WIDTH + x];
    OUT[x * HEIGHT + y] = acc.part[TAPS - 1];
}
