#define SYNC barrier(CLK_LOCAL_MEM_FENCE)
#define AT(m, r, c) m[(r) * N + (c)]

__kernel void transpose_tile(__global const float *a, __global float *b, __local float *t)
{
    int r = get_global_id(1), c = get_global_id(0);
    t[get_local_id(0)] = AT(a, r, c);
    SYNC;
    AT(b, c, r) = t[get_local_id(0)];
}
