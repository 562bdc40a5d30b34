/*---
name = "Local double2 pairs, one component of one pair never written"
family = "custom"
kernel = "pairs"
global = ["8"]
local = ["8"]
[args.out]
buffer = "double"
count = "8"
access = "write"
writes = "all"
---*/
#line 1
__kernel void pairs(__global double *out)
{
    __local double2 p[8];
    size_t l = get_local_id(0);
    p[l].x = (double)l;
    if (l != 5)
        p[l].y = 1.0;
    barrier(CLK_LOCAL_MEM_FENCE);
    double2 v = p[7 - l];
    out[l] = v.x + v.y;
}
