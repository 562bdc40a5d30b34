// The reference for sums_vs_naive.cl: one work-item adds up each group's elements.
__kernel void group_sums(__global const int* values, __global int* sums, __local int* scratch)
{
    size_t g = get_global_id(0);
    size_t n = get_local_size(0);
    if (get_local_id(0) == 0) {
        int total = 0;
        for (size_t k = 0; k < n; ++k)
            total += values[g + k];
        sums[get_group_id(0)] = total;
    }
}
