/*---
name = "A 3-tap filter whose sum spans three lines; the right tap unguarded"
family = "custom"
kernel = "taps"
global = ["64"]
local = ["16"]
[args.in]
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
__kernel void taps(__global const float *in, __global float *out)
{
    int i = get_global_id(0);
    float left = i > 0 ? in[i - 1] : 0.0f;
    out[i] = 0.25f * left
           + 0.5f * in[i]
           + 0.25f * in[i + 1];
}
