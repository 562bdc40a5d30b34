float load_clamped(__global const float *p, int i, int n);

__kernel void shift(__global const float *in, __global float *out, int n)
{
    int i = get_global_id(0);
    out[i] = load_clamped(in, i - 1, n);
}

float load_clamped(__global const float *p, int i, int n)
{
    return p[clamp(i, 0, n - 1)];
}
