/*---
name = "real and imaginary parts read apart while their neighbours are written"
family = "custom"
kernel = "parts"
global = ["64"]
local = ["64"]
[args.z]
buffer = "float4"
count = "32"
access = "read"
[args.w]
buffer = "float4"
count = "32"
contents = "zeros"
[args.out]
buffer = "float2"
count = "64"
contents = "zeros"
---*/
__kernel void parts(__global const float4 *z, __global float4 *w, __global float2 *out)
{
    const int i = get_global_id(0);
    const int k = i / 2;
    if (i % 2 == 0)
        w[k].y = 1.0f;
    else
        out[i] = w[k].xz + z[k].odd + z[k].xyz.xy;
}
