/*---
name = "A tile copied into local memory, read before the wait (tile_pairs_early)"
family = "custom"
kernel = "tile_pairs_early"
global = ["64"]
local = ["16"]
[args.in]
buffer = "float"
count = "64"
access = "read"
[args.out]
buffer = "float"
count = "64"
contents = "zeros"
access = "write"
writes = "all"
---*/
#line 1
/* Pictures filtered through images, rows staged by async copies, and values counted into
   bins: a blur through the host's clamp-to-edge sampler, a threshold whose last row reads
   below the picture, a tile copied and waited for (and one read before the wait), and a
   histogram counted atomically (and one counted with a plain increment). */
__constant sampler_t exact = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST;

__kernel void blur_rows(__read_only image2d_t src, sampler_t edge, __write_only image2d_t dst)
{
    const int2 at = (int2)(get_global_id(0), get_global_id(1));
    float sum = 0.0f;
    for (int dx = -1; dx <= 1; dx++)
        sum += read_imagef(src, edge, at + (int2)(dx, 0)).x;
    write_imagef(dst, at, (float4)(sum / 3.0f, 0.0f, 0.0f, 1.0f));
}

__kernel void threshold_pairs(__read_only image2d_t src, __global float *mask, float level)
{
    const int x = get_global_id(0), y = get_global_id(1);
    const float here = read_imagef(src, exact, (int2)(x, y)).x;
    const float below = read_imagef(src, exact, (int2)(x, y + 1)).x;
    mask[y * get_image_width(src) + x] = (here > level && below > level) ? 1.0f : 0.0f;
}

#define TILE 16

__kernel void tile_pairs(__global const float *in, __global float *out)
{
    __local float tile[TILE];
    const int l = get_local_id(0);
    event_t copied = async_work_group_copy(tile, in + get_group_id(0) * TILE, TILE, 0);
    wait_group_events(1, &copied);
    out[get_global_id(0)] = tile[l] + tile[(l + 1) % TILE];
}

__kernel void tile_pairs_early(__global const float *in, __global float *out)
{
    __local float tile[TILE];
    const int l = get_local_id(0);
    event_t copied = async_work_group_copy(tile, in + get_group_id(0) * TILE, TILE, 0);
    const float first = tile[l];
    wait_group_events(1, &copied);
    out[get_global_id(0)] = first + tile[(l + 1) % TILE];
}

__kernel void histogram(__global const int *values, __global int *bins)
{
    atomic_add(&bins[values[get_global_id(0)] & 7], 1);
}

__kernel void histogram_racy(__global const int *values, __global int *bins)
{
    bins[values[get_global_id(0)] & 7]++;
}
