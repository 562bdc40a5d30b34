"""A host program that filters pictures through OpenCL images: a 3x3 box blur of an R float
image read through a CLAMP_TO_EDGE sampler it passes as an argument, written into an RGBA
float image; then a brightening of RGBA bytes into a buffer, through a sampler declared in
the source; and a 3-D image summed along its depth into a buffer."""

import numpy as np
import pyopencl as cl

source = """
__constant sampler_t exact = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST;

__kernel void blur(__read_only image2d_t src, sampler_t smp, __write_only image2d_t dst)
{
    int2 at = (int2)(get_global_id(0), get_global_id(1));
    float sum = 0.0f;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            sum += read_imagef(src, smp, at + (int2)(dx, dy)).x;
    write_imagef(dst, at, (float4)(sum / 9.0f, at.x, at.y, 1.0f));
}

__kernel void brighten(__read_only image2d_t rgba, float gain, __global float4 *out)
{
    int x = get_global_id(0), y = get_global_id(1);
    out[y * get_image_width(rgba) + x] = gain * read_imagef(rgba, exact, (int2)(x, y));
}

__kernel void depth_sum(__read_only image3d_t vol, __global float *out)
{
    int x = get_global_id(0), y = get_global_id(1);
    float sum = 0.0f;
    for (int z = 0; z < get_image_depth(vol); z++)
        sum += read_imagef(vol, exact, (int4)(x, y, z, 0)).x;
    out[y * get_image_width(vol) + x] = sum;
}
"""
context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
program = cl.Program(context, source).build()
mf = cl.mem_flags
rng = np.random.default_rng(7)
h, w, d = 12, 20, 3

picture = rng.random((h, w), dtype=np.float32)
r_float = cl.ImageFormat(cl.channel_order.R, cl.channel_type.FLOAT)
src = cl.create_image(context, mf.READ_ONLY | mf.COPY_HOST_PTR, r_float, (w, h), hostbuf=picture)
rgba_float = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.FLOAT)
dst = cl.create_image(context, mf.WRITE_ONLY, rgba_float, (w, h))
edge = cl.Sampler(context, False, cl.addressing_mode.CLAMP_TO_EDGE, cl.filter_mode.NEAREST)
program.blur(queue, (w, h), (4, 4), src, edge, dst)
blurred = np.empty((h, w, 4), np.float32)
cl.enqueue_copy(queue, blurred, dst, origin=(0, 0), region=(w, h))

pixels = rng.integers(0, 256, (h, w, 4), dtype=np.uint8)
rgba_bytes = cl.ImageFormat(cl.channel_order.RGBA, cl.channel_type.UNORM_INT8)
rgba = cl.create_image(context, mf.READ_ONLY | mf.COPY_HOST_PTR, rgba_bytes, (w, h), hostbuf=pixels)
out = cl.Buffer(context, mf.WRITE_ONLY, h * w * 16)
program.brighten(queue, (w, h), None, rgba, np.float32(1.5), out)

volume = rng.random((d, h, w), dtype=np.float32)
vol = cl.create_image(context, mf.READ_ONLY | mf.COPY_HOST_PTR, r_float, (w, h, d), hostbuf=volume)
sums = cl.Buffer(context, mf.WRITE_ONLY, h * w * 4)
program.depth_sum(queue, (w, h), None, vol, sums)
total = np.empty((h, w), np.float32)
cl.enqueue_copy(queue, total, sums)
print(f"blur {blurred[..., 0].mean():.4f} depth {total.mean():.4f}")
