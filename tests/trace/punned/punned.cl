/*---
name = "values stored through casts to another type than the buffer's: an int into a uint buffer, an int4 by vstore4, a float's bits by an int, a uchar4 into a uint, an int into two shorts, a short into half a uint, and a read through an int cast of a float buffer"
family = "custom"
kernel = "punned"
global = ["8"]
local = ["8"]
[args.f]
buffer = "float"
count = "8"
contents = "zeros"
access = "write"
writes = "all"
[args.u]
buffer = "uint"
count = "8"
contents = "zeros"
access = "write"
writes = "all"
[args.v]
buffer = "uint"
count = "32"
contents = "zeros"
access = "write"
writes = "all"
[args.b]
buffer = "uint"
count = "8"
contents = "zeros"
access = "write"
writes = "all"
[args.same]
buffer = "int"
count = "8"
contents = "zeros"
access = "write"
writes = "all"
[args.halves]
buffer = "short"
count = "16"
contents = "zeros"
access = "write"
writes = "all"
[args.w]
buffer = "uint"
count = "8"
contents = "zeros"
access = "write"
writes = "all"
[args.x]
buffer = "float"
count = "8"
access = "read"
[args.got]
buffer = "int"
count = "8"
contents = "zeros"
access = "write"
writes = "all"
---*/
#line 1
__kernel void punned(__global float *f, __global uint *u, __global uint *v, __global uint *b,
                     __global int *same, __global short *halves, __global uint *w,
                     __global const float *x, __global int *got)
{
    const int i = get_global_id(0);
    *(__global int *)&u[i] = -83 - i;
    vstore4((int4)(-1, -2 - i, 7, -100 * i), i, (__global int *)v);
    *(__global int *)&f[i] = 0x3fc00000 + i;
    ((__global uchar4 *)b)[i] = (uchar4)(200, 1, (uchar)(2 * i), 255);
    same[i] = -5 * i - 1;
    ((__global int *)halves)[i] = -70000 - i;
    *(__global short *)&w[i] = (short)(-7 - i);
    got[i] = ((__global const int *)x)[i];
}
