/*---
name = "each voxel plus the one above it, from a 3-D image"
family = "custom"
kernel = "above"
global = ["W", "H", "D"]
local = ["4", "4", "2"]
[sizes]
W = 8
H = 6
D = 5
[args.vol]
image = "float"
width = "W"
height = "H"
depth = "D"
[args.smp]
sampler = "clamp_to_edge"
[args.out]
buffer = "float"
count = "W * H * D"
contents = "zeros"
access = "write"
result = true
[reference]
numpy = "(vol + concatenate((vol[1:], vol[-1:]))).ravel()"
terms = "2"
---*/
__kernel void above(read_only image3d_t vol, sampler_t smp, __global float *out)
{
    int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    int w = get_image_width(vol), h = get_image_height(vol), d = get_image_depth(vol);
    if (x >= w || y >= h || z >= d)
        return;
    float here = read_imagef(vol, smp, (int4)(x, y, z, 0)).x;
    float above = read_imagef(vol, smp, (int4)(x, y, z + 1, 0)).x;
    out[(z * h + y) * w + x] = here + above;
}
