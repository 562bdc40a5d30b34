/*---
name = "A barrier inside a loop that some work-items leave by break; and one whose trip count is per group"
family = "custom"
kernel = "loops"
global = ["32"]
local = ["16"]
[args.in]
buffer = "int"
count = "32"
contents = "iota"
access = "read"
[args.out]
buffer = "int"
count = "32"
contents = "zeros"
access = "write"
writes = "all"
---*/
#line 1
__kernel void loops(__global const int *in, __global int *out)
{
    __local int t[16];
    int l = get_local_id(0), g = get_global_id(0);
    int s = 0;
    for (int k = 0; k < (int)get_group_id(0) + 2; k++) {
        t[l] = in[g] + k;
        barrier(CLK_LOCAL_MEM_FENCE);
        s += t[15 - l];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int k = 0; k < 4; k++) {
        if (in[g] == 20 + k)
            break;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[g] = s;
}
