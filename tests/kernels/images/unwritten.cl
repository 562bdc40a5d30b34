/*---
name = "adds one to each pixel of an image the host never filled"
family = "custom"
kernel = "add_one"
global = ["W", "H"]
local = ["8", "4"]
[sizes]
W = 16
H = 8
[args.img]
image = "float"
width = "W"
height = "H"
contents = "noinit"
access = "readwrite"
result = true
[options]
all = "-cl-std=CL2.0"
---*/
__kernel void add_one(__read_write image2d_t img)
{
    int2 at = (int2)(get_global_id(0), get_global_id(1));
    float4 sum = read_imagef(img, at);
    write_imagef(img, at, sum + 1.0f);
}
