/*---
name = "3x3 Gaussian blur, image to image"
family = "custom"
kernel = "gaussian"
global = ["W", "H"]
local = ["8", "4"]
[sizes]
W = 24
H = 16
[args.src]
image = "float"
width = "W"
height = "H"
contents = "iou"
[args.dst]
image = "float"
width = "W"
height = "H"
access = "write"
result = true
writes = "all"
[reference]
numpy = "(1 * pad(src, 1, mode='edge')[0:0 + H, 0:0 + W] + 2 * pad(src, 1, mode='edge')[0:0 + H, 1:1 + W] + 1 * pad(src, 1, mode='edge')[0:0 + H, 2:2 + W] + 2 * pad(src, 1, mode='edge')[1:1 + H, 0:0 + W] + 4 * pad(src, 1, mode='edge')[1:1 + H, 1:1 + W] + 2 * pad(src, 1, mode='edge')[1:1 + H, 2:2 + W] + 1 * pad(src, 1, mode='edge')[2:2 + H, 0:0 + W] + 2 * pad(src, 1, mode='edge')[2:2 + H, 1:1 + W] + 1 * pad(src, 1, mode='edge')[2:2 + H, 2:2 + W]) / 16"
terms = "9"
---*/
__constant sampler_t edge = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
__constant float weight[3] = {1.0f, 2.0f, 1.0f};

__kernel void gaussian(__read_only image2d_t src, __write_only image2d_t dst)
{
    int2 at = (int2)(get_global_id(0), get_global_id(1));
    float sum = 0.0f;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            sum += weight[dy + 1] * weight[dx + 1] * read_imagef(src, edge, at + (int2)(dx, dy)).x;
    write_imagef(dst, at, (float4)(sum / 16.0f, 0.0f, 0.0f, 1.0f));
}
