#define TS 16
#define AT(p, r, c) (p)[(r) * TS + (c)]
typedef __global const float *gin_t;
typedef __local float *lptr_t;
