/*---
name = "3x3 box stencil through a local tile whose halo skips the corners"
family = "custom"
kernel = "box3"
global = ["W", "H"]
local = ["8", "8"]
[sizes]
W = 16
H = 16
[args.src]
buffer = "float"
count = "(W + 2) * (H + 2)"
access = "read"
[args.dst]
buffer = "float"
count = "W * H"
contents = "zeros"
access = "write"
shape = ["H", "W"]
writes = "all"
[args.W]
scalar = "int"
value = "W"
---*/
#line 1
#define T 8
/* src is the image with a one-pixel border already around it: (W + 2) columns. */
__kernel void box3(__global const float *src, __global float *dst, const int W)
{
    __local float tile[T + 2][T + 2];
    int lx = get_local_id(0), ly = get_local_id(1);
    int x = get_global_id(0), y = get_global_id(1);
    int P = W + 2;
    tile[ly + 1][lx + 1] = src[(y + 1) * P + x + 1];
    if (lx == 0)
        tile[ly + 1][0] = src[(y + 1) * P + x];
    if (lx == T - 1)
        tile[ly + 1][T + 1] = src[(y + 1) * P + x + 2];
    if (ly == 0)
        tile[0][lx + 1] = src[y * P + x + 1];
    if (ly == T - 1)
        tile[T + 1][lx + 1] = src[(y + 2) * P + x + 1];
    barrier(CLK_LOCAL_MEM_FENCE);
    float s = 0.0f;
    for (int dy = 0; dy < 3; dy++)
        for (int dx = 0; dx < 3; dx++)
            s += tile[ly + dy][lx + dx];
    dst[y * W + x] = s / 9.0f;
}
