/*---
name = "One Jacobi step, the border copied"
family = "custom"
kernel = "jacobi_2d"
global = ["W", "H"]
local = ["8", "8"]
[sizes]
W = 40
H = 24
[args.A]
buffer = "float"
count = "W * H"
access = "read"
shape = ["H", "W"]
[args.B]
buffer = "float"
count = "W * H"
access = "write"
shape = ["H", "W"]
result = true
[args.w]
scalar = "int"
value = "W"
[args.h]
scalar = "int"
value = "H"
[reference]
terms = 5
numpy = """concatenate((A[:1], concatenate((A[1:-1, :1],
    0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[:-2, 1:-1] + A[2:, 1:-1]),
    A[1:-1, -1:]), axis=1), A[-1:]))"""
[about]
source = "our own test kernel, in the style of PolyBench's jacobi-2d"
text = "B is the mean of each interior point and its four neighbours in A; B's border is A's. The reference joins the border and the interior with concatenate."
---*/
#line 1
__kernel void jacobi_2d(__global const float* A, __global float* B, int w, int h)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    const int i = y * w + x;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1)
        B[i] = A[i];
    else
        B[i] = 0.2f * (A[i] + A[i - 1] + A[i + 1] + A[i - w] + A[i + w]);
}
