/*---
name = "work-groups storing one float4: the same everywhere, or differing in w only"
family = "custom"
kernel = "stamp"
global = ["64"]
local = ["16"]
[args.out]
buffer = "float"
count = "64"
contents = "zeros"
[args.same]
buffer = "float4"
count = "2"
contents = "zeros"
[args.differ]
buffer = "int4"
count = "2"
contents = "zeros"
---*/
#line 1
#define STAMP(v) (v)

typedef struct { float4 colour; int4 tag; } mark_t;

mark_t mark(int g)
{
    mark_t m;
    m.colour = (float4)(0.25f, 0.5f, 0.75f, 1.0f);
    m.tag = (int4)(1, 2, 3, g);
    return m;
}

__kernel void stamp(__global float* out, __global float4* same, __global int4* differ)
{
    int i = get_global_id(0);
    mark_t m = mark(get_group_id(0));
    out[i] = (float)i;
    if (get_local_id(0) == 0) {
        same[1] = STAMP(m.colour);
        differ[1] = STAMP(m.tag);
    }
}
