/*---
name = "buffers reached through pointers kept in a private struct and in an array of pointers"
family = "custom"
kernel = "k"
global = ["64"]
local = ["16"]
[args.a]
buffer = "float"
count = "64"
access = "read"
[args.b]
buffer = "float"
count = "64"
access = "read"
[args.out]
buffer = "float"
count = "64"
contents = "zeros"
---*/
#line 1
typedef struct { __global const float* x; __global float* y; } Pair;

float get(Pair p, int i) { return p.x[i]; }

__kernel void k(__global const float* a, __global const float* b, __global float* out)
{
    int i = get_global_id(0);
    Pair p = { a, out };
    p.y[i] = get(p, i);
    __global const float* srcs[2] = { a, b };
    out[i] += srcs[1][i];
}
