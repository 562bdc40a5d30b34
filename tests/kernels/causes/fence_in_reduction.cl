/*---
name = "two kernels: a tree reduction with a barrier, and one with a mem_fence per step"
kernel = "reduce_fenced"
family = "custom"
global = ["64"]
local = ["16"]
[args.src]
buffer = "float"
count = "64"
access = "read"
[args.dst]
buffer = "float"
count = "64"
contents = "zeros"
---*/
#line 1
__kernel void reduce_ok(__global const float* src, __global float* dst)
{
    __local float part[16];
    int l = get_local_id(0);
    part[l] = src[get_global_id(0)];
    for (int s = 8; s > 0; s >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (l < s)
            part[l] += part[l + s];
    }
    if (l == 0)
        dst[get_group_id(0)] = part[0];
}

__kernel void reduce_fenced(__global const float* src, __global float* dst)
{
    __local float part[16];
    int l = get_local_id(0);
    part[l] = src[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = 8; s > 0; s >>= 1) {
        if (l < s)
            part[l] += part[l + s];
        mem_fence(CLK_LOCAL_MEM_FENCE);
    }
    if (l == 0)
        dst[get_group_id(0)] = part[0];
}
