/*---
name = "a local tile loaded only where the input has rows, read whole"
family = "custom"
kernel = "k"
global = ["N"]
local = ["16"]
[sizes]
N = 64
[args.src]
buffer = "float"
count = "N - 4"
access = "read"
[args.out]
buffer = "float"
count = "N"
contents = "zeros"
[args.n]
scalar = "int"
value = "N - 4"
---*/
__kernel void k(__global const float *src, __global float *out, int n)
{
    __local float tile[16];
    int i = get_global_id(0);
    int l = get_local_id(0);
    if (i < n)
        tile[l] = src[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    float acc[2];
    if (l > 0)
        acc[0] = tile[l - 1];
    acc[1] = tile[(l + 1) & 15];
    out[i] = acc[0] + acc[1];
}
