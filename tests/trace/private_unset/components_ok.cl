/*---
name = "components of private vector arrays each component written before it is read"
family = "custom"
kernel = "shade"
global = ["64"]
local = ["16"]
[args.x]
buffer = "float"
count = "64"
access = "read"
[args.out]
buffer = "float"
count = "64"
contents = "zeros"
---*/
#line 1
#define LIGHTS 2

typedef float4 rgba_t;

__kernel void shade(__global const float *x, __global float *out)
{
    int i = get_global_id(0);
    float v = x[i];
    rgba_t col[LIGHTS];
    float3 pos[LIGHTS];
    float2 uv[LIGHTS];
    float8 taps[LIGHTS];
    for (int l = 0; l < LIGHTS; l++) {
        col[l].xyz = (float3)(v, v * 0.5f, v * 0.25f);
        col[l].w = 1.0f;
        pos[l].x = v;
        pos[l].y = (float)l;
        pos[l].z = 1.0f;
        uv[l].lo = v;
        uv[l].s1 = 0.5f;
    }
    taps[0].even = (float4)(v);
    taps[0].odd = (float4)(0.0f);
    taps[1] = (float8)(0.0f);
    float3 p = pos[1];
    float4 c = col[0];
    float s = c.x + c.w + p.z + uv[1].hi + taps[0].s3 + taps[1].s7 + col[1].wx.x;
    out[i] = s;
}
