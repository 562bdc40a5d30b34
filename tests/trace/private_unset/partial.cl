/*---
name = "a private array only partly written before it is read"
family = "custom"
kernel = "partial"
global = ["128"]
local = ["32"]
[args.x]
buffer = "float"
count = "128"
access = "read"
[args.out]
buffer = "float"
count = "128"
contents = "zeros"
---*/
#line 1
__kernel void partial(__global const float *x, __global float *out)
{
    int i = get_global_id(0);
    float a[4];
    a[0] = x[i];
    a[1] = x[i];
    out[i] = a[0] + a[3];
}
