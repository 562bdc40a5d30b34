__kernel void scale4(__global const float *in, __global float *out, int offset, float k)
{
    int i = get_global_id(0);
    float4 v = vload4(i, in + offset);
    vstore4(v * k, 0, out + 4 * i);
}
