/*---
name = "vstoreN of every width and of integer types into global memory, one through a macro"
family = "custom"
kernel = "wide_and_typed"
global = ["32"]
local = ["8"]
[args.x]
buffer = "float"
count = "512"
access = "read"
[args.pairs]
buffer = "float"
count = "64"
contents = "zeros"
access = "write"
writes = "all"
[args.eights]
buffer = "float"
count = "256"
contents = "zeros"
access = "write"
writes = "all"
[args.sixteens]
buffer = "short"
count = "512"
contents = "zeros"
access = "write"
writes = "all"
[args.ints]
buffer = "int"
count = "128"
contents = "zeros"
access = "write"
writes = "all"
[args.bytes]
buffer = "uchar"
count = "128"
contents = "zeros"
access = "write"
writes = "all"
---*/
#line 1
#define W 4 /* pairs is 8 rows of W pairs */
#define STORE_INTS(v, i, p) vstore4((v), (i), (p))

__kernel void wide_and_typed(__global const float *x, __global float *pairs,
                             __global float *eights, __global short *sixteens,
                             __global int *ints, __global uchar *bytes)
{
    const int g = get_global_id(0);
    const int row = g / W, col = g % W;
    /* Each row of pairs written right to left. */
    vstore2((float2)(x[g], -x[g]), row * W + (W - 1 - col), pairs);
    float staged[8]; /* a private array, stored and loaded whole */
    vstore8(vload8(g, x) * 3.0f, 0, staged);
    const float8 e = vload8(0, staged);
    vstore8(e.s76543210, 0, eights + 8 * g);
    vstore16((short16)(convert_short8(e * 100.0f), (short8)(g) - convert_short8(e)), g, sixteens);
    STORE_INTS((int4)(g, -g, g * g, 7 - g), g, ints);
    vstore4(convert_uchar4_sat(vload4(g, x) * 255.0f), g, bytes);
}
