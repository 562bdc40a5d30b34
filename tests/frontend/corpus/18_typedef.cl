typedef int index_t;
typedef __global float *gbuf;

__kernel void fill(gbuf out, index_t n, float value)
{
    index_t i = get_global_id(0);
    if (i < n)
        out[i] = value;
}
