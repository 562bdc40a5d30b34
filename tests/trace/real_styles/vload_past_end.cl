/*---
name = "vload4 from an offset pointer, the last work-item one element too far"
family = "custom"
kernel = "shift4"
global = ["64"]
local = ["32"]
[args.src]
buffer = "float"
count = "256"
access = "read"
[args.dst]
buffer = "float"
count = "256"
contents = "zeros"
---*/
#line 1
__kernel void shift4(__global const float *src, __global float *dst)
{
    int i = get_global_id(0);
    float4 v = vload4(i, src + 1);
    vstore4(v.wzyx, i, dst);
}
