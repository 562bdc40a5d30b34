/*---
name = "A stencil that writes its interior only"
family = "custom"
kernel = "interior"
global = ["W", "H"]
local = ["8", "8"]
[sizes]
W = 32
H = 32
[args.src]
buffer = "float"
count = "W * H"
access = "read"
shape = ["H", "W"]
[args.dst]
buffer = "float"
count = "W * H"
shape = ["H", "W"]
[reference.numpy]
dst = "where(pad(ones((H - 2, W - 2)), 1) > 0, pad(0.25 * (src[:-2, 1:-1] + src[2:, 1:-1] + src[1:-1, :-2] + src[1:-1, 2:]), 1), dst)"
---*/
#line 1
__kernel void interior(__global const float* src, __global float* dst)
{
    int x = get_global_id(0), y = get_global_id(1);
    int w = get_global_size(0), h = get_global_size(1);
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1)
        return;  /* the border keeps what the host put there */
    dst[y * w + x] = 0.25f * (src[(y - 1) * w + x] + src[(y + 1) * w + x]
                              + src[y * w + x - 1] + src[y * w + x + 1]);
}
