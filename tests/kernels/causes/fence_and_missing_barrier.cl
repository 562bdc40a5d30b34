/*---
name = "rows summed by work-item 0: no barrier before the sum, a mem_fence before the next row"
family = "custom"
kernel = "rows"
global = ["64"]
local = ["16"]
[args.src]
buffer = "float"
count = "256"
access = "read"
[args.dst]
buffer = "float"
count = "16"
contents = "zeros"
---*/
#line 1
__kernel void rows(__global const float* src, __global float* dst)
{
    __local float part[16];
    int l = get_local_id(0), g = get_group_id(0);
    for (int r = 0; r < 4; r++) {
        part[l] = src[(g * 4 + r) * 16 + l];
        if (l == 0) {
            float s = 0.0f;
            for (int k = 0; k < 16; k++)
                s += part[k];
            dst[g * 4 + r] = s;
        }
        mem_fence(CLK_LOCAL_MEM_FENCE);
    }
}
