/*---
name = "A 2-D local tile written through a flattened pointer, read as a 2-D array transposed"
family = "custom"
kernel = "flat_tile"
global = ["16", "16"]
local = ["8", "8"]
[args.in]
buffer = "float"
count = "256"
access = "read"
[args.out]
buffer = "float"
count = "256"
contents = "zeros"
access = "write"
writes = "all"
---*/
#line 1
#define T 8
__kernel void flat_tile(__global const float *in, __global float *out)
{
    __local float tile[T][T];
    __local float *flat = &tile[0][0];
    int lx = get_local_id(0), ly = get_local_id(1);
    int x = get_global_id(0), y = get_global_id(1);
    flat[ly * T + lx] = in[y * 16 + x];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[y * 16 + x] = tile[lx][ly] + flat[(ly * T + lx + 1) % (T * T)];
}
