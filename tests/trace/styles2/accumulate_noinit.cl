/*---
name = "An accumulator that adds to an output the host never set: out[i] += a[i] * b[i]"
family = "custom"
kernel = "axpy_acc"
global = ["N"]
local = ["16"]
[sizes]
N = 64
[args.a]
buffer = "float"
count = "N"
access = "read"
[args.b]
buffer = "float"
count = "N"
access = "read"
[args.out]
buffer = "float"
count = "N"
contents = "noinit"
access = "readwrite"
---*/
#line 1
__kernel void axpy_acc(__global const float *a, __global const float *b, __global float *out)
{
    int i = get_global_id(0);
    out[i] += a[i] * b[i];
}
