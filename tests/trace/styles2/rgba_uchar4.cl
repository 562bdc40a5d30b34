/*---
name = "RGBA uchar4 brightness with a saturating convert; the alpha of odd pixels written by the neighbour"
family = "custom"
kernel = "brighten"
global = ["64"]
local = ["16"]
[args.src]
buffer = "uchar4"
count = "64"
access = "read"
[args.dst]
buffer = "uchar4"
count = "64"
contents = "zeros"
access = "write"
writes = "all"
---*/
#line 1
__kernel void brighten(__global const uchar4 *src, __global uchar4 *dst)
{
    int i = get_global_id(0);
    float4 p = convert_float4(src[i]);
    uchar4 q = convert_uchar4_sat(p * 1.5f);
    dst[i].xyz = q.xyz;
    if ((i & 1) == 0)
        dst[i + 1].w = q.w;
}
