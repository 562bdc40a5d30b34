/*---
name = "private arrays filled by a helper through a pointer, by vstore and by sincos"
family = "custom"
kernel = "filled"
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
#define N 4

void fill(float *p, float v)
{
    for (int j = 0; j < N; j++)
        p[j] = v * (float)j;
}

__kernel void filled(__global const float *x, __global float *out)
{
    int i = get_global_id(0);
    float a[N];
    fill(a, x[i]);
    float b[8];
    float *p = b + 4;
    float4 v = (float4)(x[i]);
    vstore4(v, 0, b);
    p[0] = 1.0f;
    p[1] = 2.0f;
    float c[2];
    c[0] = sincos(x[i], &c[1]);
    float d[N];
    float *q = d;
    for (int j = 0; j < N; j++)
        q[j] = (float)j;
    out[i] = a[3] + b[1] + b[5] + c[0] + c[1] + d[2] + p[2];
}
