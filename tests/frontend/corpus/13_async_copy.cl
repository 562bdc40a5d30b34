__kernel void stage(__global const float *in, __global float *out, __local float *buf, int n)
{
    int g = get_group_id(0);
    event_t e = async_work_group_copy(buf, in + g * n, (size_t)n, 0);
    wait_group_events(1, &e);
    e = async_work_group_strided_copy(out + g, buf, (size_t)n, (size_t)4, 0);
    wait_group_events(1, &e);
}
