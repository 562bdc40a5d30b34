__kernel void vec_add(__global const float *a, __global const float *b, __global float *out)
{
    int i = get_global_id(0);
    out[i] = a[i] + b[i];
}
