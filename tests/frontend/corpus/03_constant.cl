__constant float weights[3] = {0.25f, 0.5f, 0.25f};

__kernel void blur(__global const float *in, __constant float *gain, __global float *out)
{
    int i = get_global_id(0) + 1;
    out[i] = gain[0] * (weights[0] * in[i - 1] + weights[1] * in[i] + weights[2] * in[i + 1]);
}
