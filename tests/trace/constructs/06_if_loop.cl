/*---
name = "#if around a loop header"
family = "transpose"
kernel = "t_if"
args = ["WIDTH", "HEIGHT", "IN", "OUT"]
global = ["WIDTH", "HEIGHT / 4"]
local = ["16", "4"]
---*/
#define ROWS 4
__kernel void t_if(int WIDTH, int HEIGHT, __global const float* IN, __global float* OUT)
{
    int x = get_global_id(0), y0 = get_global_id(1) * ROWS;
#if ROWS > 1
    for (int r = 0; r < ROWS; r++) {
#else
    { int r = 0;
#endif
        OUT[x * HEIGHT + y0 + r] = IN[(y0 + r) * WIDTH + x];
    }
}
