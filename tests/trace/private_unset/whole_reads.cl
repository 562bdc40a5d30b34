/*---
name = "a helper reads a float4 array whole; a vload4 over an array filled short"
family = "custom"
kernel = "k"
global = ["32"]
local = ["32"]
[args.y]
buffer = "float"
count = "32"
contents = "zeros"
---*/
#line 1
static float total(const float4 *v, int n)
{
    float s = 0.0f;
    for (int i = 0; i < n; i++) {
        float4 t = v[i];
        s += t.x + t.y + t.z;
    }
    return s;
}

static void fill(float *a, int n) { for (int i = 0; i < n - 1; i++) a[i] = i; }

__kernel void k(__global float *y)
{
    float4 p[2];
    p[0].xyz = (float3)(1.0f);
    p[1] = (float4)(2.0f);
    float a[4];
    fill(a, 4);
    y[get_global_id(0)] = total(p, 2) + vload4(0, a).x;
}
