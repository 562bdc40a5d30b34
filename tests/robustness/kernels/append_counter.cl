/*---
name = "odd values appended through a counter the kernel keeps"
family = "custom"
kernel = "append_odd"
global = ["128"]
local = ["32"]
[args.values]
buffer = "int"
count = "128"
access = "read"
[args.kept]
buffer = "int"
count = "128"
contents = "zeros"
[args.used]
buffer = "uint"
count = "1"
contents = "zeros"
---*/
__kernel void append_odd(__global const int *values, __global int *kept,
                         __global volatile uint *used)
{
    const int v = values[get_global_id(0)];
    if (v & 1)
        kept[atomic_inc(used)] = v;
}
