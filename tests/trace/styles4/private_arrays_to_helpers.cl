/*---
name = "private arrays handed to helpers, a __local argument, tr_ names, one summed one past its end"
family = "custom"
kernel = "k"
global = ["N"]
local = ["16"]
[sizes]
N = 64
[args.src]
buffer = "float"
count = "N"
access = "read"
[args.scratch]
local = "float"
count = "16"
[args.out]
buffer = "float"
count = "N"
contents = "zeros"
---*/
typedef float vec3_t[3];
static void tr_fill(float *restrict dst, const __global float *restrict from, int n)
{
    for (int i = 0; i < n; i++) dst[i] = from[i];
}
static float tr_sum(const float *v, int n)
{
    float s = 0.0f;
    for (int i = 0; i < n; ++i) s += v[i];
    return s;
}
static float tr_norm(const vec3_t v) { return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); }
__kernel void k(__global const float *src, __local float *scratch, __global float *out)
{
    float window[4];
    vec3_t p;
    const int i = get_global_id(0), l = get_local_id(0), n = get_global_size(0);
    tr_fill(window, src + min(i, n - 4), 4);
    tr_fill(p, src + min(i, n - 3), 3);
    scratch[l] = tr_sum(window, 5) + tr_norm(p);
    barrier(CLK_LOCAL_MEM_FENCE);
    out[i] = scratch[15 - l];
}
