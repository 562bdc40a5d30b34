/*---
name = "3x3 box blur through an image"
family = "custom"
kernel = "box_blur"
global = ["W", "H"]
local = ["8", "8"]
[sizes]
W = 37
H = 21
[args.src]
image = "float"
width = "W"
height = "H"
[args.smp]
sampler = "clamp_to_edge"
[args.out]
buffer = "float"
count = "W * H"
shape = ["H", "W"]
contents = "zeros"
access = "write"
result = true
writes = "all"
[reference]
numpy = "(pad(src, 1, mode='edge')[0:0 + H, 0:0 + W] + pad(src, 1, mode='edge')[0:0 + H, 1:1 + W] + pad(src, 1, mode='edge')[0:0 + H, 2:2 + W] + pad(src, 1, mode='edge')[1:1 + H, 0:0 + W] + pad(src, 1, mode='edge')[1:1 + H, 1:1 + W] + pad(src, 1, mode='edge')[1:1 + H, 2:2 + W] + pad(src, 1, mode='edge')[2:2 + H, 0:0 + W] + pad(src, 1, mode='edge')[2:2 + H, 1:1 + W] + pad(src, 1, mode='edge')[2:2 + H, 2:2 + W]) / 9"
terms = "9"
---*/
__kernel void box_blur(__read_only image2d_t src, sampler_t smp, __global float *out)
{
    int x = get_global_id(0), y = get_global_id(1);
    int w = get_image_width(src), h = get_image_height(src);
    if (x >= w || y >= h)
        return;
    float sum = 0.0f;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            sum += read_imagef(src, smp, (int2)(x + dx, y + dy)).x;
    out[y * w + x] = sum / 9.0f;
}
