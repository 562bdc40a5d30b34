/*---
name = "maths built-ins store their second result into private variables"
family = "custom"
kernel = "second_results"
global = ["64"]
local = ["16"]
[args.x]
buffer = "float"
count = "64"
access = "read"
[args.out]
buffer = "float"
count = "64"
contents = "zeros"
[args.whole]
buffer = "int"
count = "64"
contents = "zeros"
---*/
#line 1
typedef struct { float re; float im; } cplx;

__kernel void second_results(__global const float *x, __global float *out, __global int *whole)
{
    int i = get_global_id(0);
    float c, ip, ip2;
    int e, q, sign;
    float s = sincos(x[i], &c);
    float f = fract(x[i], &ip);
    float m = frexp(x[i], &e);
    float r = remquo(x[i], 1.5f, &q);
    float g = lgamma_r(x[i] + 2.0f, &sign);
    float w = modf(x[i], &ip2);
    float2 pair, cosines;
    pair = sincos((float2)(x[i], 0.5f * x[i]), &cosines);
    cplx z;
    z.re = sincos(x[i], &z.im);
    float kept;
    float *into = &kept;
    *into = s * c;
    out[i] = s + c + f + ip + m + r + g + w + ip2 + pair.x + cosines.y + z.re + z.im + kept;
    whole[i] = e + q + sign;
}
