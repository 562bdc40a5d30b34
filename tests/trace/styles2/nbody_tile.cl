/*---
name = "N-body accelerations with float4 bodies through a local tile, second barrier missing"
family = "custom"
kernel = "nbody_acc"
global = ["N"]
local = ["16"]
[sizes]
N = 64
[args.pos]
buffer = "float4"
count = "N"
access = "read"
[args.acc]
buffer = "float4"
count = "N"
contents = "zeros"
access = "write"
writes = "all"
[args.tile]
local = "float4"
count = "L0"
[args.eps2]
scalar = "float"
value = 0.01
---*/
#line 1
__kernel void nbody_acc(__global const float4 *pos, __global float4 *acc,
                        __local float4 *tile, float eps2)
{
    int i = get_global_id(0), l = get_local_id(0), n = get_global_size(0);
    int ls = get_local_size(0);
    float4 me = pos[i];
    float4 a = (float4)(0.0f);
    for (int t = 0; t < n; t += ls) {
        tile[l] = pos[t + l];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int j = 0; j < ls; j++) {
            float4 d = tile[j] - me;
            float r2 = d.x * d.x + d.y * d.y + d.z * d.z + eps2;
            float inv = native_rsqrt(r2);
            a += d * (tile[j].w * inv * inv * inv);
        }
    }
    acc[i] = (float4)(a.xyz, 0.0f);
}
