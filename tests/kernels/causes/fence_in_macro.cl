/*---
name = "a tile rotated through a fence written as a macro"
kernel = "rotate"
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
#define TILE 16
#define FENCE_LOCAL() mem_fence(CLK_LOCAL_MEM_FENCE)
#define NEXT(l) (((l) + 1) % TILE)
__kernel void rotate(__global const float* src, __global float* dst)
{
    __local float tile[TILE];
    int l = get_local_id(0), i = get_global_id(0);
    tile[l] = src[i];
    FENCE_LOCAL();
    dst[i] = tile[NEXT(l)];
}
