// Our own kernel: it copies a buffer that nothing initialised (a .sim `noinit` buffer).
__kernel void stale(__global const int* scratch, __global int* out)
{
    int i = get_global_id(0);
    out[i] = scratch[i];
}
