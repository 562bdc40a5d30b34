/*---
name = "horizontal gradient, one pixel too far at the right edge"
family = "custom"
kernel = "gradient"
global = ["W", "H"]
local = ["8", "4"]
[sizes]
W = 16
H = 8
[args.src]
image = "float"
width = "W"
height = "H"
[args.smp]
sampler = "none"
[args.out]
buffer = "float"
count = "W * H"
shape = ["H", "W"]
contents = "zeros"
access = "write"
result = true
---*/
__kernel void gradient(__read_only image2d_t src, sampler_t smp, __global float *out)
{
    int x = get_global_id(0), y = get_global_id(1);
    float right = read_imagef(src, smp, (int2)(x + 1, y)).x;
    out[y * get_image_width(src) + x] = right - read_imagef(src, smp, (int2)(x, y)).x;
}
