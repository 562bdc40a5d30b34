__kernel void copy_run(__global const int *src, __global int *dst, int n)
{
    __global const int *p = src + get_global_id(0) * n;
    __global int *q = dst + get_global_id(0) * n;
    for (int k = 0; k < n; ++k)
        *q++ = *p++;
    *(q - 1) = 0;
}
