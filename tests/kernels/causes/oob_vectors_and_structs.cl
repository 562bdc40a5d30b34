/*---
name = "1-D accesses past both ends: a scalar bound, a neighbour, a vload, a struct"
family = "custom"
kernel = "edges"
global = ["n"]
local = ["16"]
[sizes]
n = 64
[args.n]
scalar = "int"
value = "n"
[args.x]
buffer = "float"
count = "n"
access = "read"
[args.y]
buffer = "float"
count = "n"
contents = "zeros"
---*/
#line 1
typedef struct { float v; int k; } cell_t;

__kernel void edges(int n, __global const float* x, __global float* y)
{
    __local cell_t cells[16];
    int i = get_global_id(0), l = get_local_id(0);
    cells[l].v = x[i];
    barrier(CLK_LOCAL_MEM_FENCE);
    float left = x[i - 1];
    float4 quad = vload4(i, x);
    float next = l < 15 ? cells[l + 1].v : cells[l + 1].v;
    y[i] = left + quad.x + next;
}
