/*---
name = "pointer typedefs, const pointers, do-while with barriers, a scratch pointer one too far"
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
[args.out]
buffer = "float"
count = "N"
contents = "zeros"
---*/
typedef __global const float *const_row;
typedef __local float *restrict scratch_p;
__kernel void k(const_row src, __global float *restrict const out)
{
    __local float buf[32];
    scratch_p s = buf + 17;
    const uint l = get_local_id(0);
    const_row p = src + get_group_id(0) * 16;
    __global float *const o = out + get_group_id(0) * 16;
    float acc = 0.0f;
    uint round = 0;
    do {
        s[l] = p[l] * (float)(round + 1);
        barrier(CLK_LOCAL_MEM_FENCE);
        acc += s[(l + round) & 15];
        barrier(CLK_LOCAL_MEM_FENCE);
        p += 0;
    } while (++round < 4);
    const float *q = &acc;
    o[l] = *q;
}
