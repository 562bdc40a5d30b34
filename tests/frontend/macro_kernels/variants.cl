/*---
name = "an #ifdef-selected variant"
family = "custom"
kernel = "blur"
global = ["64"]
local = ["16"]
[args.a]
buffer = "float"
count = "64"
access = "read"
[args.b]
buffer = "float"
count = "64"
contents = "zeros"
access = "write"
writes = "all"
[defines]
WIDE = 0
---*/
#line 1
#if WIDE
__kernel void blur(__global const float *a, __global float *b)
{
    size_t i = get_global_id(0);
    b[i] = a[i] + a[i + 1];
}
#else
__kernel void blur(__global const float *a, __global float *b)
{
    size_t i = get_global_id(0);
    b[i] = a[i];
}
#endif
