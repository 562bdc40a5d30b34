/*---
name = "2-D convolution, borders left as they were"
family = "custom"
kernel = "convolution_2d"
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
contents = "zeros"
shape = ["H", "W"]
result = true
[args.w]
scalar = "int"
value = "W"
[args.h]
scalar = "int"
value = "H"
[reference]
terms = 9
numpy = """concatenate((B[:1], concatenate((B[1:-1, :1],
    0.2 * A[:-2, :-2] + 0.5 * A[:-2, 1:-1] - 0.8 * A[:-2, 2:]
    - 0.3 * A[1:-1, :-2] + 0.6 * A[1:-1, 1:-1] - 0.9 * A[1:-1, 2:]
    + 0.4 * A[2:, :-2] + 0.7 * A[2:, 1:-1] + 0.1 * A[2:, 2:],
    B[1:-1, -1:]), axis=1), B[-1:]))"""
[about]
source = "our own test kernel, in the style of PolyBench's 2DCONV"
text = "A 3×3 convolution of the interior; the border of B keeps its zeros. The reference joins the border and the interior with concatenate."
---*/
#line 1
__kernel void convolution_2d(__global const float* A, __global float* B, int w, int h)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1)
        return;
    B[y * w + x] = 0.2f * A[(y - 1) * w + x - 1] + 0.5f * A[(y - 1) * w + x]
                 - 0.8f * A[(y - 1) * w + x + 1] - 0.3f * A[y * w + x - 1]
                 + 0.6f * A[y * w + x] - 0.9f * A[y * w + x + 1]
                 + 0.4f * A[(y + 1) * w + x - 1] + 0.7f * A[(y + 1) * w + x]
                 + 0.1f * A[(y + 1) * w + x + 1];
}
