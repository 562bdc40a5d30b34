/*---
name = "private structs with array members handed to helpers"
family = "custom"
kernel = "blend"
global = ["128"]
local = ["32"]
[args.x]
buffer = "float"
count = "128"
access = "read"
[args.out]
buffer = "float"
count = "128"
contents = "zeros"
[reference]
numpy = "x * 1 + x * 2 + x * 3"
---*/
#line 1
#define TAPS 3

typedef struct {
    float w[TAPS];
    float m[2][TAPS];
} taps_t;

float apply(taps_t t, float v)
{
    float s = 0.0f;
    for (int k = 0; k < TAPS; k++)
        s += t.w[k] * v + t.m[1][k];
    return s;
}

void fill(taps_t *t)
{
    for (int k = 0; k < TAPS; k++) {
        t->w[k] = (float)(k + 1);
        t->m[1][k] = 0.0f;
    }
}

__kernel void blend(__global const float *x, __global float *out)
{
    int i = get_global_id(0);
    taps_t own;
    taps_t many[2];
    fill(&own);
    for (int r = 0; r < 2; r++)
        for (int k = 0; k < TAPS; k++)
            many[r].w[k] = own.w[k];
    float *first = many[1].w;
    out[i] = apply(own, x[i]) * first[0] * many[0].w[0];
}
