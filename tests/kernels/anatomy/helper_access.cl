/*---
name = "An access inside a helper, its index passed in by the caller"
family = "custom"
kernel = "k"
global = ["N"]
local = ["8"]
[sizes]
N = 32
[args.a]
buffer = "float"
count = "N"
result = true
[args.n]
scalar = "int"
value = "N"
---*/
int at(int r, int c, int n) { return r * n + c; }
void put(__global float* a, int i, float v) { a[i] = v; }
__kernel void k(__global float* a, int n)
{
    int g = get_global_id(0);
    int row = g / 8;
    put(a, at(row, g % 8, 8), 1.0f);
}
