/*---
name = "An atomic on local memory nothing wrote"
family = "custom"
kernel = "k"
global = ["64"]
local = ["16"]
[args.out]
buffer = "int"
count = "64"
contents = "zeros"
---*/
#line 1
__kernel void k(__global int* out)
{
    __local int count;
    int old = atomic_inc(&count);
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = old;
}
