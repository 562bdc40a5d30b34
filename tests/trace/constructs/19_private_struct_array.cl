/*---
name = "array members of a private struct"
family = "transpose"
kernel = "t_struct_array"
args = ["WIDTH", "HEIGHT", "IN", "OUT"]
global = ["WIDTH", "HEIGHT"]
local = ["16", "16"]
---*/
#define TAPS 4
typedef struct {
    float part[TAPS];
    float grid[2][TAPS];
    float4 lanes[2];
    struct { int at[2]; } where;
    int used;
} acc_t;

static float total(acc_t a)
{
    float s = 0.0f;
    for (int t = 0; t < a.used; t++)
        s += a.part[t];
    return s;
}

__kernel void t_struct_array(int WIDTH, int HEIGHT, __global const float* IN, __global float* OUT)
{
    int x = get_global_id(0), y = get_global_id(1);
    acc_t acc;
    acc.used = TAPS;
    for (int t = 0; t < TAPS; t++) {
        acc.part[t] = 0.0f;
        acc.grid[1][t] = 0.0f;
    }
    float v = IN[y * WIDTH + x];
    acc.part[y & (TAPS - 1)] = v;
    float *row = acc.grid[1];
    row[x & (TAPS - 1)] = v;
    acc.lanes[1] = (float4)(0.0f);
    acc.lanes[1].y = v;
    acc.where.at[0] = x;
    acc.where.at[1] = y;
    float s = total(acc) + acc.lanes[1].y;
    for (int t = 0; t < acc.used; t++)
        s += acc.grid[1][t];
    OUT[acc.where.at[0] * HEIGHT + acc.where.at[1]] = s / 3.0f;
}
