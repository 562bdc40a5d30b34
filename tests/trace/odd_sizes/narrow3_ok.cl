/*---
name = "uchar3 and short3 triples copied with vload3 and vstore3"
family = "custom"
kernel = "narrow"
global = ["64"]
local = ["32"]
[args.rgb]
buffer = "uchar"
count = "192"
access = "read"
[args.rgb_out]
buffer = "uchar"
count = "192"
contents = "zeros"
writes = "all"
[args.s]
buffer = "short"
count = "192"
access = "read"
[args.s_out]
buffer = "short"
count = "192"
contents = "zeros"
writes = "all"
---*/
#line 1
__kernel void narrow(__global const uchar *rgb, __global uchar *rgb_out,
                     __global const short *s, __global short *s_out)
{
    int i = get_global_id(0);
    vstore3(vload3(i, rgb), i, rgb_out);
    vstore3(vload3(i, s), i, s_out);
}
