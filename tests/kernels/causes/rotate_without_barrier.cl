/*---
name = "each work-item takes its right neighbour's value through local memory, with no barrier"
family = "custom"
kernel = "rotate"
global = ["N"]
local = ["32"]
[sizes]
N = 128
[args.src]
buffer = "float"
count = "N"
access = "read"
[args.dst]
buffer = "float"
count = "N"
contents = "zeros"
result = true
[reference]
numpy = "roll(src.reshape(-1, 32), -1, axis=1).reshape(-1)"
---*/
#line 1
__kernel void rotate(__global const float* src, __global float* dst)
{
    __local float ring[32];
    const int l = get_local_id(0);
    ring[l] = src[get_global_id(0)];
    dst[get_global_id(0)] = ring[(l + 1) % 32];
}
