/*---
name = "A helper that returns early for the tail, called before a barrier every work-item reaches"
family = "custom"
kernel = "two_pass"
global = ["N"]
local = ["16"]
[sizes]
N = 40
[args.in]
buffer = "float"
count = "N"
access = "read"
[args.out]
buffer = "float"
count = "N"
contents = "zeros"
access = "write"
writes = "all"
[args.n]
scalar = "int"
value = "N"
---*/
#line 1
void load(__local float *t, __global const float *in, int g, int l, int n)
{
    t[l] = 0.0f;
    if (g >= n)
        return;
    t[l] = in[g];
}

__kernel void two_pass(__global const float *in, __global float *out, int n)
{
    __local float t[16];
    int g = get_global_id(0), l = get_local_id(0);
    load(t, in, g, l, n);
    barrier(CLK_LOCAL_MEM_FENCE);
    float v = t[l] + t[15 - l];
    if (g < n)
        out[g] = v;
}
