/*---
name = "float4 stores written as people write them: arguments with side effects, stores in ?: arms, a for-loop header and a macro in if/else, swizzled stores, and a race and an unwritten read inside stores"
family = "custom"
kernel = "swizzles"
global = ["8"]
local = ["8"]
[args.x]
buffer = "float"
count = "32"
access = "read"
[args.o]
buffer = "float"
count = "544"
contents = "zeros"
access = "write"
---*/
#line 1
#define PUT(q, i, v) q[i] = (v);

float4 next(float4 *s)
{
    *s += 1.0f;
    return *s;
}

__kernel void swizzles(__global const float *x, __global float *o)
{
    __local float shared[4];
    __local float4 acc[8];
    const int g = get_global_id(0), l = get_local_id(0);
    const float4 v = vload4(g, x);
    __global float *p = o + 64 * g;
    __global float4 *q = (__global float4 *)p;
    int i = 0;
    vstore4(v, i++, p);                           /* q[0] */
    q[i++] = v + 1.0f;                            /* q[1] */
    *(__global float4 *)(p + 4 * i++) = v + 2.0f; /* q[2] */
    float4 s = v;
    vstore4(next(&s), i++, p);                    /* q[3]: v + 1 */
    (g & 1) ? (q[i] = v * 2.0f) : (q[i] = v * 3.0f); /* q[4] */
    i++;
    for (int j = 0; j < 2; j++, q[i++] = v - (float)j) {} /* q[5] = v - 1, q[6] = v - 2 */
    if (g > 3)
        PUT(q, i, v * 5.0f)
    else
        PUT(q, i, v * 7.0f)                       /* q[7] */
    i++;
    q[i++].xy = v.zw;                             /* o[32], o[33] of the work-item's 64 */
    q[i++].hi = v.lo;                             /* o[38], o[39] */
    q[i++].wzyx = v;                              /* o[40..43]: v.w, v.z, v.y, v.x */
    q[i++].odd = v.even;                          /* o[45] = v.x, o[47] = v.z */
    const float2 r = ((__global const float4 *)x)[g].yx;
    p[60] = r.x - r.y;
    p[61] = (float)i;
    __global float4 *r4 = (__global float4 *)(o + 512);
    r4[g].s123 = v.xyz; /* its record is r4[g], not r4[g + 1].x: no race with work-item g + 1 */
    r4[g].s0 = (float)g;
    vstore4(v, 0, shared);                        /* every work-item: a race */
    acc[l] += v;                                  /* never written: an unwritten read */
}
