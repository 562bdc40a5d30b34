/*---
name = "Arrays of 12- and 20-byte structs copied whole"
family = "custom"
kernel = "copy"
global = ["64"]
local = ["32"]
[args.src]
buffer = "float"
count = "192"
access = "read"
[args.dst]
buffer = "float"
count = "192"
contents = "zeros"
writes = "all"
[args.src5]
buffer = "float"
count = "320"
access = "read"
[args.dst5]
buffer = "float"
count = "320"
contents = "zeros"
writes = "all"
---*/
#line 1
typedef struct { float x, y, z; } point;
typedef struct { float a, b, c, d, e; } five;
__kernel void copy(__global const point *src, __global point *dst,
                   __global const five *src5, __global five *dst5)
{
    int i = get_global_id(0);
    point p = src[i];
    dst[i] = p;
    dst5[i] = src5[i];
}
