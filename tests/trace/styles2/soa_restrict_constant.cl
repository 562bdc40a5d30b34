/*---
name = "Struct of arrays through restrict pointers, weights from a __constant table indexed one past its end"
family = "custom"
kernel = "soa_weigh"
global = ["N"]
local = ["16"]
[sizes]
N = 64
[args.px]
buffer = "float"
count = "N"
access = "read"
[args.py]
buffer = "float"
count = "N"
access = "read"
[args.kind]
buffer = "int"
count = "N"
contents = "iota"
access = "read"
[args.coef]
buffer = "float"
count = "4"
contents = "ones"
access = "read"
[args.out]
buffer = "float"
count = "N"
contents = "zeros"
access = "write"
writes = "all"
---*/
#line 1
__constant float WEIGHT[4] = {0.5f, 1.0f, 1.5f, 2.0f};

__kernel void soa_weigh(__global const float *restrict px, __global const float *restrict py,
                        __global const int *restrict kind, __constant float *coef,
                        __global float *restrict out)
{
    int i = get_global_id(0);
    int k = kind[i] & 7;
    float w = (k < 4) ? WEIGHT[k] : WEIGHT[k - 3];
    out[i] = w * coef[i & 3] * (px[i] * px[i] + py[i] * py[i]);
}
