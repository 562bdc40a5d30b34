/* a header of several lines */
#ifndef STENCIL_COMMON_H
#define STENCIL_COMMON_H

#define TS 16
#define AT(p, r, c) (p)[(r) * TS + (c)]

typedef __global const float *gin_t;

static inline int wrap(int i, int n) { return (i + n) % n; }

#endif
