/*---
name = "Blelloch work-efficient exclusive scan of 64 values a group, bank-offset padded"
family = "custom"
kernel = "blelloch"
global = ["N / 2"]
local = ["32"]
[sizes]
N = 128
[args.in]
buffer = "int"
count = "N"
contents = "ones"
access = "read"
[args.out]
buffer = "int"
count = "N"
contents = "zeros"
access = "write"
writes = "all"
---*/
#line 1
#define NUM_BANKS 32
#define LOG_NUM_BANKS 5
#define CONFLICT_FREE_OFFSET(n) ((n) >> LOG_NUM_BANKS)
#define B 64

__kernel void blelloch(__global const int *in, __global int *out)
{
    __local int temp[B + B / NUM_BANKS];
    int thid = get_local_id(0);
    int base = get_group_id(0) * B;
    int ai = thid, bi = thid + B / 2;
    temp[ai + CONFLICT_FREE_OFFSET(ai)] = in[base + ai];
    temp[bi + CONFLICT_FREE_OFFSET(bi)] = in[base + bi];
    int offset = 1;
    for (int d = B >> 1; d > 0; d >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (thid < d) {
            int a = offset * (2 * thid + 1) - 1;
            int b = offset * (2 * thid + 2) - 1;
            a += CONFLICT_FREE_OFFSET(a);
            b += CONFLICT_FREE_OFFSET(b);
            temp[b] += temp[a];
        }
        offset *= 2;
    }
    if (thid == 0)
        temp[B - 1 + CONFLICT_FREE_OFFSET(B - 1)] = 0;
    for (int d = 1; d < B; d *= 2) {
        offset >>= 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (thid < d) {
            int a = offset * (2 * thid + 1) - 1;
            int b = offset * (2 * thid + 2) - 1;
            a += CONFLICT_FREE_OFFSET(a);
            b += CONFLICT_FREE_OFFSET(b);
            int t = temp[a];
            temp[a] = temp[b];
            temp[b] += t;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    out[base + ai] = temp[ai + CONFLICT_FREE_OFFSET(ai)];
    out[base + bi] = temp[bi + CONFLICT_FREE_OFFSET(bi)];
}
