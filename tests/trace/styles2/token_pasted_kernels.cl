/*---
name = "Loaders made by one macro with token pasting; the index chosen by #if"
family = "custom"
kernel = "scale_mul"
global = ["N"]
local = ["16"]
[sizes]
N = 64
[defines]
SHIFTED = 1
[args.in]
buffer = "float"
count = "N"
access = "read"
[args.out]
buffer = "float"
count = "N"
contents = "zeros"
access = "write"
writes = "all"
[args.s]
scalar = "float"
value = 2.0
---*/
#line 1
#if SHIFTED
#define AT(i) ((i) + 1)
#else
#define AT(i) (i)
#endif

#define MAKE_LOAD(NAME, SPACE)                                          \
    float load_##NAME(SPACE const float *p, int i) { return p[AT(i)]; }

MAKE_LOAD(global, __global)
MAKE_LOAD(constant, __constant)

__kernel void scale_mul(__global const float *in, __global float *out, float s)
{
    int i = get_global_id(0);
    out[i] = load_global(in, i) * s;
}
