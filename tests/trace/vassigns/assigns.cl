/*---
name = "float4, int2 and uchar4 values stored by plain assignment: through pointer casts, a float4 parameter, a macro, += and a local tile read back after a barrier"
family = "custom"
kernel = "assigns"
global = ["32"]
local = ["8"]
[args.x]
buffer = "float"
count = "256"
access = "read"
[args.out]
buffer = "float"
count = "128"
contents = "zeros"
access = "write"
writes = "all"
[args.quads]
buffer = "float"
count = "128"
contents = "zeros"
access = "write"
writes = "all"
[args.shifted]
buffer = "float"
count = "128"
contents = "zeros"
access = "write"
writes = "all"
[args.sums]
buffer = "float"
count = "128"
contents = "zeros"
access = "write"
writes = "all"
[args.pairs]
buffer = "int"
count = "64"
contents = "zeros"
access = "write"
writes = "all"
[args.bytes]
buffer = "uchar"
count = "128"
contents = "zeros"
access = "write"
writes = "all"
[args.back]
buffer = "float"
count = "128"
contents = "zeros"
access = "write"
writes = "all"
[defines]
RACY = 0
[allowed]
RACY = [0, 1]
---*/
#line 1
#ifndef RACY
#define RACY 0 /* 1: no barrier between the tile's stores and its reads */
#endif
#define PUT4(dst, i, v) (((__global float4 *)(dst))[(i)] = (v))

__kernel void assigns(__global const float *x, __global float *out, __global float4 *quads,
                      __global float *shifted, __global float *sums, __global int *pairs,
                      __global uchar *bytes, __global float *back)
{
    __local float tile[8 * 4];
    const int g = get_global_id(0);
    const int l = get_local_id(0);
    const float4 a = *(__global const float4 *)(x + 4 * g);
    const float4 b = vload4(g + 32, x);
    __global float *p = out + 4 * g;
    *(__global float4 *)p = a * 2.0f + b;
    quads[g] = ((__global const float4 *)x)[63 - g] - a;
    PUT4(shifted, g, b.wzyx);
    __global float4 *s4 = (__global float4 *)sums;
    s4[g] = a;
    s4[g] += ((__global const float4 *)x)[32 + g] * 0.25f;
    ((__global int2 *)pairs)[g] = (int2)(g * 7 - 100, convert_int(a.x * 1000.0f));
    ((__global uchar4 *)bytes)[g] = convert_uchar4_sat(b * 255.0f);
    ((__local float4 *)tile)[l] = a + b;
#if !RACY
    barrier(CLK_LOCAL_MEM_FENCE);
#endif
    ((__global float4 *)back)[g] = ((__local float4 *)tile)[(l + 1) % 8];
}
