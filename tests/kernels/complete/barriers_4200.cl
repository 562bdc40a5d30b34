/*---
name = "4,200 barriers, correctly ordered"
family = "custom"
kernel = "k"
global = ["32"]
local = ["32"]
[args.out]
buffer = "int"
count = "32"
contents = "zeros"
---*/
#line 1
__kernel void k(__global int* out)
{
    __local int t[32];
    int l = get_local_id(0);
    t[l] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int r = 0; r < 4200; r++) {
        t[l] += 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        out[l] = t[(l + 1) % 32];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
