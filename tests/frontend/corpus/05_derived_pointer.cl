__kernel void row_sum(__global const float *m, __global float *sums, int n)
{
    int r = get_global_id(0);
    __global const float *row = m + r * n;
    float s = 0.0f;
    for (int k = 0; k < n; ++k)
        s += row[k];
    sums[r] = s;
}
