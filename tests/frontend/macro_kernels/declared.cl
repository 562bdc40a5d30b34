/*---
name = "a kernel named through a macro, its body written out"
family = "custom"
kernel = "twice"
global = ["64"]
local = ["16"]
[args.x]
buffer = "float"
count = "64"
access = "read"
[args.y]
buffer = "float"
count = "64"
contents = "zeros"
access = "write"
writes = "all"
---*/
#line 1
#define KDECL(NAME) __kernel void NAME
#define EMPTY_KERNEL(NAME) __kernel void NAME(void) { }

EMPTY_KERNEL(nothing)

KDECL(twice)(__global const float *x, __global float *y)
{
    size_t i = get_global_id(0);
    y[i] = 2.0f * x[i + 1];
}
