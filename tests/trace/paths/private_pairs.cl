/*---
name = "Two triples in a private array, the second's z never set"
family = "custom"
kernel = "private_pairs"
global = ["64"]
local = ["32"]
[args.in]
buffer = "float"
count = "192"
access = "read"
[args.out]
buffer = "float"
count = "192"
contents = "zeros"
writes = "all"
---*/
#line 1
/* Triples kept in private arrays, and a kernel whose build options choose its element:
   built with -DPACKED=1 it reads uchar triples into local memory, without it short triples. */
#ifndef PACKED
#define PACKED 0
#endif
#if PACKED
typedef uchar elem_t;
typedef uchar3 elem3_t;
#else
typedef short elem_t;
typedef short3 elem3_t;
#endif

/* Two triples staged in a private array; the second's z is never set, then read. */
__kernel void private_pairs(__global const float *in, __global float *out)
{
    const int i = get_global_id(0);
    float pair[6];
    vstore3(vload3(i, in), 0, pair);
    pair[3] = 1.0f;
    pair[4] = 2.0f;
    vstore3(vload3(0, pair) + vload3(1, pair), i, out);
}

/* Triples of the chosen element through local memory, reversed within the group. */
__kernel void reverse3(__global const elem_t *src, __global elem_t *dst)
{
    __local elem_t tile[3 * 32];
    const int l = get_local_id(0), g = get_global_id(0);
    vstore3(vload3(g, src), l, tile);
    barrier(CLK_LOCAL_MEM_FENCE);
    vstore3(vload3(31 - l, tile), g, dst);
}
