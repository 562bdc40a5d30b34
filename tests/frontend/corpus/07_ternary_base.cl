__kernel void pick(__global float *a, __global float *b, int use_a)
{
    int i = get_global_id(0);
    (use_a ? a : b)[i] = 1.0f;
}
