__kernel void count_positive(__global const float *in, __global int *counts)
{
    __local int count;
    if (get_local_id(0) == 0)
        count = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (in[get_global_id(0)] > 0.0f)
        atomic_inc(&count);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0)
        counts[get_group_id(0)] = count;
}
