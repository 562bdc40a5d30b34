// Our own kernel: a 5x3 NDRange in work-groups of 2x2, so the last group of each dimension is
// smaller. Each work-item writes, at its linear global id, what the work-item functions say.
__kernel void partial_groups(__global int* out)
{
    size_t at = get_global_linear_id();
    out[at] = (int)(get_local_linear_id() + 10 * get_local_size(0) + 100 * get_local_size(1)
                    + 1000 * get_enqueued_local_size(0) + 10000 * get_global_size(0));
}
