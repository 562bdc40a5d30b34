/*---
name = "Forgets to write its result"
family = "custom"
kernel = "writes_nothing"
global = ["N"]
local = ["32"]
[sizes]
N = 128
[args.x]
buffer = "float"
count = "N"
access = "read"
[args.out]
buffer = "int"
count = "N"
access = "write"
result = true
---*/
__kernel void writes_nothing(__global const float* x, __global int* out)
{
    size_t i = get_global_id(0);
    if (x[i] > 2.0f)  /* never: x is in [-1, 1) */
        out[i] = 0;
}
