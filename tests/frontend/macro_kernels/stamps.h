/* The stamping macro of included.cl, in a header of its own. */
#define SHIFT_KERNEL(NAME, OP)                                  \
    __kernel void shift_##NAME(__global const float *x,         \
                               __global float *y, float s)      \
    {                                                           \
        size_t i = get_global_id(0);                            \
        y[i] = x[i + 1] OP s;                                   \
    }
