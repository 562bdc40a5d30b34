/*---
name = "float4 tiles copied, only the first of two events waited for"
family = "custom"
kernel = "k"
global = ["N"]
local = ["16"]
[sizes]
N = 64
[args.src]
buffer = "float"
count = "N"
access = "read"
[args.out]
buffer = "float"
count = "N"
contents = "zeros"
---*/
__kernel void k(__global const float *src, __global float *out)
{
    __local float4 lo[2], hi[2];
    event_t ev[2];
    const size_t g = get_group_id(0), l = get_local_id(0);
    __global const float4 *s4 = (__global const float4 *)(src + g * 16);
    ev[0] = async_work_group_copy(lo, s4, 2, 0);
    ev[1] = async_work_group_copy(hi, s4 + 2, 2, 0);
    wait_group_events(1, ev);
    float4 v = l < 8 ? lo[l >> 2] : hi[(l - 8) >> 2];
    out[g * 16 + l] = ((float *)&v)[l & 3];
}
