/*---
name = "stamped kernels, one reads past its end"
family = "custom"
kernel = "shift_add"
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
[args.s]
scalar = "float"
value = "2"
---*/
#line 1
#define SHIFT_KERNEL(NAME, OP)                                  \
    __kernel void shift_##NAME(__global const float *x,         \
                               __global float *y, float s)      \
    {                                                           \
        size_t i = get_global_id(0);                            \
        y[i] = x[i + 1] OP s;                                   \
    }

SHIFT_KERNEL(mul, *)
SHIFT_KERNEL(add, +)
