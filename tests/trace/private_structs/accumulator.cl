/*---
name = "a struct accumulator with an array member in a reduction loop"
family = "custom"
kernel = "weighted_sums"
global = ["256"]
local = ["64"]
[args.x]
buffer = "float"
count = "256"
access = "read"
[args.out]
buffer = "float"
count = "256"
contents = "zeros"
[args.n]
scalar = "int"
value = "256"
[reference]
numpy = "x * 10"
---*/
#line 1
#define WAYS 4

typedef struct {
    float v[WAYS];
    int n;
} acc_t;

__kernel void weighted_sums(__global const float *x, __global float *out, const int n)
{
    int i = get_global_id(0);
    if (i >= n)
        return;
    acc_t s;
    s.n = WAYS;
    for (int j = 0; j < WAYS; j++)
        s.v[j] = x[i] * (float)(j + 1);
    float total = 0.0f;
    for (int j = 0; j < s.n; j++)
        total += s.v[j];
    out[i] = total;
}
