__kernel void bytes(__global float *buf, __global uchar *flags)
{
    int i = get_global_id(0);
    ((__global char *)buf)[4 * i] = 0;
    flags[i] = ((__global const uchar *)buf)[4 * i + 3];
}
