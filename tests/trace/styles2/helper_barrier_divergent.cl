/*---
name = "A helper that synchronises its group, called under a condition only half the group takes"
family = "custom"
kernel = "staged"
global = ["32"]
local = ["16"]
[args.in]
buffer = "float"
count = "32"
access = "read"
[args.out]
buffer = "float"
count = "32"
contents = "zeros"
access = "write"
writes = "all"
---*/
#line 1
float exchange(__local float *t, float v, int l)
{
    t[l] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    return t[l ^ 1];
}

__kernel void staged(__global const float *in, __global float *out)
{
    __local float t[16];
    int l = get_local_id(0), g = get_global_id(0);
    float v = in[g];
    if (l < 8)
        v = exchange(t, v, l);
    out[g] = v;
}
