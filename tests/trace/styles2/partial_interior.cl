/*---
name = "A 5-point Laplacian that writes the interior only, promising the interior"
family = "custom"
kernel = "laplace"
global = ["W", "H"]
local = ["8", "8"]
[sizes]
W = 16
H = 16
[args.u]
buffer = "float"
count = "W * H"
access = "read"
shape = ["H", "W"]
[args.lap]
buffer = "float"
count = "W * H"
contents = "zeros"
access = "write"
shape = ["H", "W"]
writes = "[1:-1, 1:-1]"
---*/
#line 1
__kernel void laplace(__global const float *u, __global float *lap)
{
    int x = get_global_id(0), y = get_global_id(1);
    int W = get_global_size(0), H = get_global_size(1);
    if (x < 1 || y < 1 || x >= W - 1 || y > H - 1)
        return;
    int i = y * W + x;
    lap[i] = u[i - 1] + u[i + 1] + u[i - W] + u[i + W] - 4.0f * u[i];
}
