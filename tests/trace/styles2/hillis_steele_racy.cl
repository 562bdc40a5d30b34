/*---
name = "Hillis-Steele inclusive scan in place, one buffer, no second barrier"
family = "custom"
kernel = "hs_scan"
global = ["32"]
local = ["32"]
[args.in]
buffer = "int"
count = "32"
contents = "ones"
access = "read"
[args.out]
buffer = "int"
count = "32"
contents = "zeros"
access = "write"
writes = "all"
---*/
#line 1
__kernel void hs_scan(__global const int *in, __global int *out)
{
    __local int t[32];
    int l = get_local_id(0);
    t[l] = in[l];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int off = 1; off < 32; off <<= 1) {
        if (l >= off)
            t[l] += t[l - off];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[l] = t[l];
}
