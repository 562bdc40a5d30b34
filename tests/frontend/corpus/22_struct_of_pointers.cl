typedef struct {
    __global const float *src;
    __global float *dst;
} views_t;

__kernel void via_struct(__global const float *a, __global float *b)
{
    views_t v;
    v.src = a;
    v.dst = b;
    int i = get_global_id(0);
    v.dst[i] = v.src[i];
}
