/*---
name = "three kernels sharing helpers, the header picks the middle one"
family = "custom"
kernel = "middle"
global = ["N"]
local = ["16"]
[sizes]
N = 64
[args.src]
buffer = "float"
count = "N"
access = "read"
[args.out]
buffer = "float"
count = "N"
contents = "zeros"
---*/
static void stage(__local float *t, __global const float *g, int l)
{
    t[l] = g[l];
    barrier(CLK_LOCAL_MEM_FENCE);
}
static float pair(__local const float *t, int l) { return t[l] + t[l ^ 1]; }

__kernel void first(__global const float *src, __global float *out)
{
    __local float t[16];
    event_t e = async_work_group_copy(t, src, 16, 0);
    wait_group_events(1, &e);
    out[get_global_id(0)] = pair(t, get_local_id(0));
}

__kernel void middle(__global const float *src, __global float *out)
{
    __local float t[16];
    const int l = get_local_id(0);
    stage(t, src + get_group_id(0) * 16, l);
    out[get_global_id(0)] = pair(t, l);
}

__kernel void last(__global const float *src, __global float *out)
{
    __local float t[16];
    stage(t, src, get_local_id(0));
    out[get_global_id(0)] = pair(t, 15 - get_local_id(0));
}
