// Our own kernel for the .sim reader's tests: the argument forms scaled_copy.sim leaves out.
// BIAS comes from the build options the .sim file names.
__kernel void forms(__global long* out, __global const short* taps, __global const double* scale,
                    __global int* scratch, int4 lanes, int2 pair, float gain, uchar mask)
{
    size_t i = get_global_id(1) * get_global_size(0) + get_global_id(0);
    scratch[i] = (int)i;
    long tap = taps[i % 4] * (lanes.x + lanes.w) + pair.y;
    out[i] = tap * (long)(scale[0] * gain) + BIAS + (mask & 1) + scratch[i] - (int)i;
}
