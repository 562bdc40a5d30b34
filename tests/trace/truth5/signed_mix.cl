/*---
name = "a negative index through a signed/unsigned mix"
family = "custom"
kernel = "k"
global = ["N"]
local = ["16"]
[sizes]
N = 64
[args.src]
buffer = "float"
count = "N"
access = "read"
[args.out]
buffer = "float"
count = "N"
contents = "zeros"
---*/
__kernel void k(__global const float *src, __global float *out)
{
    int i = get_global_id(0);
    int left = i - 1;
    float a = src[i];
    float b = (left >= 0) ? src[left] : 0.0f;
    float c = src[i - 2 + (i > 1) * 2 - (i == 0)];
    out[i] = a + b + c;
}
