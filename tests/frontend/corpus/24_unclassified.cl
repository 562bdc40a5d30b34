__kernel void opaque(__global const ulong *addresses, __global float *out, read_only image2d_t img,
                     sampler_t smp)
{
    int i = get_global_id(0);
    out[i] = ((__global const float *)addresses[i])[0];
    out[i + 1] = read_imagef(img, smp, (int2)(i, 0)).x;
}
