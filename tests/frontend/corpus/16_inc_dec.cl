__kernel void counters(__global int *hits, __global int *misses, __global const int *which)
{
    int i = get_global_id(0);
    if (which[i])
        hits[i]++;
    else
        --misses[i];
}
