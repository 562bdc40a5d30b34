/*---
name = "A nine-point stencil, the border copied"
family = "custom"
kernel = "stencil_2d"
global = ["W", "H"]
local = ["8", "8"]
[sizes]
W = 40
H = 24
[args.data]
buffer = "float"
count = "W * H"
access = "read"
shape = ["H", "W"]
[args.out]
buffer = "float"
count = "W * H"
access = "write"
shape = ["H", "W"]
result = true
[args.center]
scalar = "float"
value = 0.5
[args.cardinal]
scalar = "float"
value = -0.3
[args.diagonal]
scalar = "float"
value = 0.2
[args.w]
scalar = "int"
value = "W"
[args.h]
scalar = "int"
value = "H"
[reference]
terms = 9
numpy = """concatenate((data[:1], concatenate((data[1:-1, :1],
    center * data[1:-1, 1:-1]
    + cardinal * (data[:-2, 1:-1] + data[2:, 1:-1] + data[1:-1, :-2] + data[1:-1, 2:])
    + diagonal * (data[:-2, :-2] + data[:-2, 2:] + data[2:, :-2] + data[2:, 2:]),
    data[1:-1, -1:]), axis=1), data[-1:]))"""
[about]
source = "our own test kernel, in the style of SHOC's Stencil2D"
text = "Weighted centre, cardinal and diagonal neighbours for the interior; the border is copied. The reference joins the border and the interior with concatenate."
---*/
#line 1
__kernel void stencil_2d(__global const float* data, __global float* out,
                         float center, float cardinal, float diagonal, int w, int h)
{
    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h)
        return;
    const int i = y * w + x;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
        out[i] = data[i];
        return;
    }
    out[i] = center * data[i]
           + cardinal * (data[i - w] + data[i + w] + data[i - 1] + data[i + 1])
           + diagonal * (data[i - w - 1] + data[i - w + 1] + data[i + w - 1] + data[i + w + 1]);
}
