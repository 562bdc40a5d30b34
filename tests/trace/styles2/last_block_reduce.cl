/*---
name = "Threadfence-style reduction: each group writes its partial sum, the last group to finish adds them"
family = "custom"
kernel = "last_block"
global = ["64"]
local = ["16"]
[args.in]
buffer = "float"
count = "64"
access = "read"
[args.partial]
buffer = "float"
count = "4"
contents = "zeros"
access = "readwrite"
[args.count]
buffer = "uint"
count = "1"
contents = "zeros"
access = "readwrite"
[args.out]
buffer = "float"
count = "1"
contents = "zeros"
access = "write"
writes = "all"
---*/
#line 1
__kernel void last_block(__global const float *in, __global float *partial,
                         volatile __global uint *count, __global float *out)
{
    __local float s[16];
    __local int last;
    int l = get_local_id(0);
    s[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) {
        float t = 0.0f;
        for (int k = 0; k < 16; k++)
            t += s[k];
        partial[get_group_id(0)] = t;
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        last = atomic_inc(count) == get_num_groups(0) - 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (last && l == 0) {
        float t = 0.0f;
        for (int k = 0; k < (int)get_num_groups(0); k++)
            t += partial[k];
        out[0] = t;
    }
}
