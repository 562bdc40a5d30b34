__kernel void shuffle(__global int* out)
{
    int i = get_global_id(0);
    out[i] = 63 - i;
}
