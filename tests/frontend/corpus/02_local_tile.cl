__kernel void reverse_tile(__global const float *in, __global float *out)
{
    __local float tile[16];
    int l = get_local_id(0);
    int g = get_global_id(0);
    tile[l] = in[g];
    barrier(CLK_LOCAL_MEM_FENCE);
    out[g] = tile[15 - l];
}
