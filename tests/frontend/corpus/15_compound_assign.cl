__kernel void axpy(__global const float *x, __global float *y, float a)
{
    int i = get_global_id(0);
    y[i] += a * x[i];
    y[i] *= 0.5f;
}
