/*---
name = "RGBA bytes to brighter floats"
family = "custom"
kernel = "brighten"
global = ["W", "H"]
local = ["8", "4"]
[sizes]
W = 32
H = 20
[args.src]
image = "unorm_int8"
channels = "RGBA"
width = "W"
height = "H"
contents = "iou"
[args.dst]
image = "float"
channels = "RGBA"
width = "W"
height = "H"
access = "write"
result = true
[args.gain]
scalar = "float"
value = 2.0
[reference]
numpy = "gain * src / 255.0"
---*/
__constant sampler_t exact = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST;

__kernel void brighten(__read_only image2d_t src, __write_only image2d_t dst, float gain)
{
    int2 at = (int2)(get_global_id(0), get_global_id(1));
    write_imagef(dst, at, gain * read_imagef(src, exact, at));
}
