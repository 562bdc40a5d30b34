/*---
name = "neighbour sum through a local array of structs, no barrier"
family = "custom"
kernel = "nbr"
global = ["256"]
local = ["64"]
[args.IN]
buffer = "float"
count = "512"
access = "read"
[args.OUT]
buffer = "float"
count = "256"
contents = "zeros"
---*/
#line 1
typedef struct { float a; float b; } Pair;

__kernel void nbr(__global const float *IN, __global float *OUT)
{
    __local Pair cell[64];
    int g = get_global_id(0), l = get_local_id(0);
    cell[l].a = IN[2 * g];
    cell[l].b = IN[2 * g + 1];
    int n = (l + 1) % 64;
    OUT[g] = cell[n].a + cell[n].b;
}
