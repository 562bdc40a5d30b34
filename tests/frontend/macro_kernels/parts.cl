/*---
name = "parameter list and body from macros"
family = "custom"
kernel = "copy_next"
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
---*/
#line 1
#define KERNEL __kernel
#define ARGS __global const float *a, __global float *b
#define BODY \
    size_t i = get_global_id(0); \
    b[i] = a[i + 1];

KERNEL void copy_next(ARGS)
{
    BODY
}
