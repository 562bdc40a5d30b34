__kernel void histogram(__global const uint *keys, __global int *bins, __global int *lock)
{
    int i = get_global_id(0);
    atomic_add(&bins[keys[i] & 255], 1);
    atomic_inc(bins + 256);
    if (atomic_cmpxchg(lock, 0, 1) == 0)
        atomic_xchg(lock, 0);
}
