/*---
name = "Guard by early return before a barrier: the last group's tail leaves, the rest wait"
family = "custom"
kernel = "smooth"
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
[args.n]
scalar = "int"
value = "N - 4"
---*/
#line 1
__kernel void smooth(__global const float *in, __global float *out, const int n)
{
    __local float t[16];
    int g = get_global_id(0), l = get_local_id(0);
    if (g >= n)
        return;
    t[l] = in[g];
    barrier(CLK_LOCAL_MEM_FENCE);
    float right = (l < 15) ? t[l + 1] : t[l];
    out[g] = 0.5f * (t[l] + right);
}
