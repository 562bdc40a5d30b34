/*---
name = "A tiled loop whose work-items skip a tile by continue before its barrier"
family = "custom"
kernel = "skip_tiles"
global = ["32"]
local = ["16"]
[args.in]
buffer = "float"
count = "64"
access = "read"
[args.out]
buffer = "float"
count = "32"
contents = "zeros"
access = "write"
writes = "all"
---*/
#line 1
__kernel void skip_tiles(__global const float *in, __global float *out)
{
    __local float t[16];
    int l = get_local_id(0), g = get_global_id(0);
    float s = 0.0f;
    for (int k = 0; k < 4; k++) {
        if (k == 2 && l == 5)
            continue;
        t[l] = in[k * 16 + l];
        barrier(CLK_LOCAL_MEM_FENCE);
        s += t[(l + 1) & 15];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[g] = s;
}
