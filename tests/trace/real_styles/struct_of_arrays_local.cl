/*---
name = "struct of arrays in local memory, 2-D group"
family = "custom"
kernel = "soa"
global = ["32", "8"]
local = ["16", "4"]
[args.in]
buffer = "float2"
count = "256"
access = "read"
[args.out]
buffer = "float"
count = "256"
contents = "zeros"
writes = "all"
---*/
#line 1
typedef struct {
    float re[64];
    float im[64];
} Soa;

__kernel void soa(__global const float2 *in, __global float *out)
{
    __local Soa s;
    int l = get_local_id(1) * get_local_size(0) + get_local_id(0);
    int g = get_global_id(1) * get_global_size(0) + get_global_id(0);
    float2 v = in[g];
    s.re[l] = v.x;
    s.im[l] = v.y;
    barrier(CLK_LOCAL_MEM_FENCE);
    int m = 63 - l;
    out[g] = s.re[m] * s.re[m] + s.im[m] * s.im[m];
}
