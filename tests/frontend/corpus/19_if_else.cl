__kernel void dot(__global const float *a, __global const float *b, __global float *out, int n)
{
    float s = 0.0f;
#if UNROLL > 1
    for (int k = 0; k < n; k += 2) {
        s += a[k] * b[k] + a[k + 1] * b[k + 1];
#else
    for (int k = 0; k < n; ++k) {
        s += a[k] * b[k];
#endif
    }
    out[get_global_id(0)] = s;
}
