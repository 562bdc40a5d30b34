/*---
name = "Halves of a local tile handed to a helper as tile + 8: the second half reads past the tile"
family = "custom"
kernel = "halves"
global = ["32"]
local = ["16"]
[args.in]
buffer = "float"
count = "32"
access = "read"
[args.out]
buffer = "float"
count = "32"
contents = "zeros"
access = "write"
writes = "all"
---*/
#line 1
float near(__local const float *h, int k)
{
    return h[k] + h[k + 8];
}

__kernel void halves(__global const float *in, __global float *out)
{
    __local float tile[16];
    int l = get_local_id(0), g = get_global_id(0);
    tile[l] = in[g];
    barrier(CLK_LOCAL_MEM_FENCE);
    __local const float *part = (l < 8) ? tile : tile + 8;
    out[g] = near(part, l & 7);
}
