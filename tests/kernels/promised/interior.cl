/*---
name = "A stencil that promises its interior and writes it"
family = "custom"
kernel = "interior"
global = ["W", "H"]
local = ["8", "8"]
[sizes]
W = 16
H = 16
[args.src]
buffer = "float"
count = "W * H"
access = "read"
shape = ["H", "W"]
[args.dst]
buffer = "float"
count = "W * H"
contents = "zeros"
shape = ["H", "W"]
writes = "[1:-1, 1:-1]"
[reference.numpy]
dst = "pad(0.25 * (src[:-2, 1:-1] + src[2:, 1:-1] + src[1:-1, :-2] + src[1:-1, 2:]), 1)"
---*/
#line 1
__kernel void interior(__global const float* src, __global float* dst)
{
    int x = get_global_id(0), y = get_global_id(1);
    int w = get_global_size(0), h = get_global_size(1);
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1)
        return;  /* the border is not promised: it keeps its zeros */
    dst[y * w + x] = 0.25f * (src[(y - 1) * w + x] + src[(y + 1) * w + x]
                              + src[y * w + x - 1] + src[y * w + x + 1]);
}
