/*---
name = "global memory doubled in place, read_mem_fence, then a neighbour's read"
kernel = "neighbour"
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
__kernel void neighbour(__global const float* src, __global float* dst)
{
    int i = get_global_id(0), l = get_local_id(0);
    dst[i] = 2.0f * src[i];
    read_mem_fence(CLK_GLOBAL_MEM_FENCE);
    float right = l + 1 < 16 ? dst[i + 1] : 0.0f;
    dst[i] += right;
}
