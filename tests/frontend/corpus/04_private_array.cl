__kernel void four_sums(__global const float *a, __global float *out, int n)
{
    float acc[4];
    for (int j = 0; j < 4; ++j)
        acc[j] = 0.0f;
    for (int k = 0; k < n; ++k)
        acc[k & 3] += a[k];
    out[get_global_id(0)] = acc[0] + acc[3];
}
