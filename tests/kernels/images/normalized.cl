/*---
name = "a copy through normalised coordinates at the pixels' centres"
family = "custom"
kernel = "sample"
global = ["W", "H"]
local = ["4", "4"]
[sizes]
W = 8
H = 4
[args.src]
image = "float"
width = "W"
height = "H"
[args.smp]
sampler = "clamp_to_edge"
normalized = true
filter = "nearest"
[args.shift]
scalar = "float"
value = 0.0
[args.out]
buffer = "float"
count = "W * H"
shape = ["H", "W"]
contents = "zeros"
access = "write"
result = true
[reference]
numpy = "src"
---*/
__kernel void sample(__read_only image2d_t src, sampler_t smp, float shift, __global float *out)
{
    int x = get_global_id(0), y = get_global_id(1);
    int w = get_image_width(src), h = get_image_height(src);
    float2 at = (float2)((x + 0.5f) / w + shift, (y + 0.5f) / h);
    out[y * w + x] = read_imagef(src, smp, at).x;
}
