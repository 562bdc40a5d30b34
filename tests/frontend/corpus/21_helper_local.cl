void tree_sum(__local float *s, int l)
{
    for (int stride = 8; stride > 0; stride >>= 1) {
        if (l < stride)
            s[l] += s[l + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

__kernel void reduce16(__global const float *in, __global float *out, __local float *s)
{
    int l = get_local_id(0);
    s[l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    tree_sum(s, l);
    if (l == 0)
        out[get_group_id(0)] = s[0];
}
