typedef struct {
    float re;
    float im;
} complex_t;

__kernel void cmul(__global const complex_t *z, __global complex_t *w)
{
    int i = get_global_id(0);
    complex_t p = z[i];
    w[i].re = p.re * p.re - p.im * p.im;
    w[i].im = 2.0f * p.re * z[i].im;
}
