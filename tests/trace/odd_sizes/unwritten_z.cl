/*---
name = "A local tile of triples whose z nobody writes, read back with vload3"
family = "custom"
kernel = "tile_xy"
global = ["64"]
local = ["32"]
[args.xyz]
buffer = "float"
count = "192"
access = "read"
[args.out]
buffer = "float"
count = "64"
contents = "zeros"
writes = "all"
---*/
#line 1
__kernel void tile_xy(__global const float *xyz, __global float *out)
{
    __local float tile[3 * 32];
    int i = get_global_id(0);
    int l = get_local_id(0);
    tile[3 * l] = xyz[3 * i];
    tile[3 * l + 1] = xyz[3 * i + 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    float3 v = vload3(l, tile);
    out[i] = v.x + v.y + v.z;
}
