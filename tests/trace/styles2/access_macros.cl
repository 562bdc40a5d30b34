/*---
name = "Accessor macros that hold the whole access, A(r, c) and AT(p, i); the right neighbour unguarded"
family = "custom"
kernel = "smooth_rows"
global = ["8", "8"]
local = ["8", "8"]
[args.a]
buffer = "float"
count = "64"
access = "read"
[args.out]
buffer = "float"
count = "64"
contents = "zeros"
access = "write"
writes = "all"
---*/
#line 1
#define W 8
#define A(r, c) a[(r) * W + (c)]
#define AT(p, i) (p)[i]
__kernel void smooth_rows(__global const float *a, __global float *out)
{
    int x = get_global_id(0), y = get_global_id(1);
    float s = A(y, x) + A(y, x + 1);
    AT(out, y * W + x) = 0.5f * s;
}
