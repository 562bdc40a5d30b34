/*---
name = "a 2x downscale that writes each output pixel twice"
family = "custom"
kernel = "downscale"
global = ["W", "H"]
local = ["8", "8"]
[sizes]
W = 16
H = 16
[args.src]
image = "float"
width = "W"
height = "H"
[args.dst]
image = "float"
width = "W / 2"
height = "H / 2"
access = "write"
result = true
---*/
__constant sampler_t exact = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST;

__kernel void downscale(__read_only image2d_t src, __write_only image2d_t dst)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (y % 2 == 1)
        return;
    float4 v = read_imagef(src, exact, (int2)(x, y));
    write_imagef(dst, (int2)(x / 2, y / 2), v);
}
