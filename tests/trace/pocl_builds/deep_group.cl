/*---
name = "one 4,096-item work-group reverses its values through local memory, each item keeping more than a thread's default stack holds once traced"
family = "custom"
kernel = "reverse_group"
global = ["4096"]
local = ["4096"]
[args.x]
buffer = "float"
count = "4096"
access = "read"
[args.out]
buffer = "float"
count = "4096"
contents = "zeros"
---*/
#line 1
#define KEPT 400  /* 1,600 bytes a work-item, 6.25 MiB a group: past a thread's 8 MiB once traced */
__kernel void reverse_group(__global const float *x, __global float *out)
{
    __local float shared[4096];
    int i = get_local_id(0);
    float own = x[i];
    float kept[KEPT];
    for (int k = 0; k < KEPT; k++)
        kept[k] = own * (float)(k + 1);
    shared[i] = kept[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    float mine = shared[4095 - i];
    for (int k = 1; k < KEPT; k++)
        mine += kept[k] - kept[k - 1] - own;
    out[i] = mine;
}
