/*---
name = "Vector reads one element past their alignment"
family = "custom"
kernel = "shifted_quads"
global = ["N"]
local = ["N"]
[sizes]
N = 64
[args.x]
buffer = "float"
count = "N"
access = "read"
[args.y]
buffer = "float"
count = "N"
result = true
[args.tile]
local = "float"
count = "N"
[about]
bug = "float4 reads through pointers one or two floats off a 16-byte boundary"
---*/
__kernel void shifted_quads(__global const float* x, __global float* y, __local float* tile)
{
    const int lid = get_local_id(0);
    const int gid = get_global_id(0);
    tile[lid] = x[gid];
    barrier(CLK_LOCAL_MEM_FENCE);
    float s = 0.0f;
    if (lid < 4) {
        const float4 v = *(__local const float4*)&tile[4 * lid + 1];
        const float4 w = *(__global const float4*)&x[4 * gid + 2];
        s = v.x + w.y;
    }
    y[gid] = s;
}
