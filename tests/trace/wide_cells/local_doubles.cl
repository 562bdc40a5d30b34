/*---
name = "Local doubles, two left unwritten (t[3], t[7]), each read by two work-items"
family = "custom"
kernel = "neighbours"
global = ["16"]
local = ["16"]
[args.out]
buffer = "double"
count = "16"
access = "write"
writes = "all"
---*/
#line 1
__kernel void neighbours(__global double *out)
{
    __local double t[16];
    size_t l = get_local_id(0);
    if (l != 3 && l != 7)
        t[l] = (double)l;
    barrier(CLK_LOCAL_MEM_FENCE);
    double right = t[(l + 1) % 16];
    double next = t[(l + 2) % 16];
    out[l] = right + next;
}
