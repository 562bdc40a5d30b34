/*---
name = "helpers over private arrays of two sizes, one given too short a count and one filled short"
family = "custom"
kernel = "k"
global = ["64"]
local = ["16"]
[args.x]
buffer = "float"
count = "64"
access = "read"
[args.y]
buffer = "float"
count = "64"
contents = "zeros"
---*/
#line 1
static void zero(float *p, int n) { for (int i = 0; i < n; i++) p[i] = 0.0f; }
static float sum(const float *p, int n) { float s = 0.0f; for (int i = 0; i < n; i++) s += p[i]; return s; }
static void walk(float *p, int n) { for (int i = 0; i < n; i++) *p++ = 1.0f; }
static float3 mid(const float *q) { return vload3(0, q + 1); }

__kernel void k(__global const float *x, __global float *y)
{
    const int g = get_global_id(0);
    float small[3], big[9], w[4];
    zero(small, 3);
    zero(big, 7);
    walk(w, 4);
    small[1] = x[g];
    big[8] = x[g] * 2.0f;
    float3 v[2];
    vstore3((float3)(1.0f, 2.0f, 3.0f), 0, (float *)v);
    v[1] = v[0] * 2.0f;
    float3 m = mid(big);
    y[g] = sum(small, 4) + sum(big, 9) + sum(w, 4) + v[1].z + m.y;
}
