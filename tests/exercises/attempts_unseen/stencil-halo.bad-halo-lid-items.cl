/*---
name = "Exercise: a stencil with a halo"
family = "custom"
kernel = "blur"
global = ["N"]
local = ["64"]
[sizes]
N = 256
[args.in]
buffer = "float"
count = "N"
access = "read"
[args.out]
buffer = "float"
count = "N"
access = "write"
result = true
[args.n]
scalar = "int"
value = "N"
[args.tile]
local = "float"
count = "L0 + 2"
[reference]
numpy = "pad(in, 1)[:-2] + in + pad(in, 1)[2:]"
terms = "3"
---*/
__kernel void blur(__global const float* in, __global float* out, int n,
                   __local float* tile)
{
    int i = get_global_id(0);
    int lid = get_local_id(0);
    int items = get_local_size(0);
    tile[lid + 1] = (i < n) ? in[i] : 0.0f;
    if (lid == 0)
        tile[0] = (i > 0) ? in[i - 1] : 0.0f;
    if (lid == items)
        tile[items + 1] = (i + 1 < n) ? in[i + 1] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (i < n)
        out[i] = tile[lid] + tile[lid + 1] + tile[lid + 2];
}
