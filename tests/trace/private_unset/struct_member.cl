/*---
name = "a struct's array member summed before all of it is set"
family = "custom"
kernel = "struct_sums"
global = ["64"]
local = ["16"]
[args.x]
buffer = "float"
count = "64"
access = "read"
[args.out]
buffer = "float"
count = "64"
contents = "zeros"
---*/
#line 1
#define WAYS 4

typedef struct {
    float v[WAYS];
    int n;
} acc_t;

__kernel void struct_sums(__global const float *x, __global float *out)
{
    int i = get_global_id(0);
    acc_t s;
    s.n = WAYS;
    for (int j = 1; j < s.n; j++)  /* starts at 1: s.v[0] is never set */
        s.v[j] = x[i] * (float)j;
    float total = 0.0f;
    for (int j = 0; j < s.n; j++)
        total += s.v[j];
    acc_t t = {0};
    t.v[1] = total;
    out[i] = t.v[0] + t.v[1];
}
