/*---
name = "Scaled copy whose early return lets one work-item too many through"
family = "custom"
kernel = "scaled"
global = ["N + 8"]
local = ["8"]
[sizes]
N = 20
[args.x]
buffer = "float"
count = "N"
access = "read"
[args.y]
buffer = "float"
count = "N"
result = true
[args.n]
scalar = "int"
value = "N"
[about]
bug = "i > n where i >= n was meant: work-item n reads and writes one past the end"
---*/
__kernel void scaled(__global const float* x, __global float* y, int n)
{
    const int i = get_global_id(0);
    if (i > n)
        return;
    y[i] = 3.0f * x[i];
}
