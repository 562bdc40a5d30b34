/*---
name = "A null pointer compared"
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
    __global int* p = NULL;
    int i = get_global_id(0);
    if (p == NULL)
        out[i] = i;
}
