/*---
name = "particles staged in local memory, a copy handed on by a chained assignment, its unset member read"
family = "custom"
kernel = "mirror"
global = ["128"]
local = ["64"]
[args.pos]
buffer = "float2"
count = "128"
access = "read"
[args.out]
buffer = "float"
count = "128"
contents = "zeros"
writes = "all"
---*/
#line 1
/* pad keeps the struct at 16 bytes, as the host side's layout has it */
typedef struct {
    float x, y;
    float mass;
    int pad;
} Particle;

__kernel void mirror(__global const float2 *pos, __global float *out)
{
    __local Particle tile[64];
    const int l = get_local_id(0), g = get_global_id(0);
    tile[l].x = pos[g].x;
    tile[l].y = pos[g].y;
    tile[l].mass = 1.0f;
    barrier(CLK_LOCAL_MEM_FENCE);

    Particle p, keep;
    keep = p = tile[63 - l];         /* p's copy handed on whole: keep holds pad too */
    out[g] = p.mass * (p.x * p.x + p.y * p.y) + (float)keep.pad;
}
