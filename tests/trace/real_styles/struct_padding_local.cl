/*---
name = "padded structs in local memory, each member written, copied whole"
family = "custom"
kernel = "pk"
global = ["128"]
local = ["64"]
[args.pts]
buffer = "float4"
count = "128"
access = "read"
[args.out]
buffer = "float"
count = "128"
contents = "zeros"
writes = "all"
---*/
#line 1
typedef struct { float4 p; int id; } P;  /* 20 bytes of members in 32 */

__kernel void pk(__global const float4 *pts, __global float *out)
{
    __local P loc[64];
    int l = get_local_id(0), g = get_global_id(0);
    loc[l].p = pts[g];
    loc[l].id = g;
    barrier(CLK_LOCAL_MEM_FENCE);
    P q = loc[63 - l];
    out[g] = q.p.x + (float)q.id;
}
