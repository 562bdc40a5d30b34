/*---
name = "one work-item writes the w of a float4 through a chain of selections, another its x"
family = "custom"
kernel = "chains"
global = ["32"]
local = ["32"]
[args.v]
buffer = "float4"
count = "4"
contents = "zeros"
[args.out]
buffer = "float"
count = "32"
contents = "zeros"
---*/
#define FIRST(p) ((p).wz.x)

__kernel void chains(__global float4 *v, __global float *out)
{
    const int i = get_global_id(0);
    if (i == 0)
        FIRST(v[1]) = 1.0f;          /* .wz.x: the w of v[1] */
    if (i == 1)
        v[1].x = 2.0f;
    out[i] = v[2].zyx.xy.y + v[3].lo.y;
}
