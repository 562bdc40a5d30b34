/*---
name = "a large private histogram, and jumps into a private array's scope"
family = "custom"
kernel = "classify"
global = ["64"]
local = ["16"]
[args.x]
buffer = "float"
count = "64"
access = "read"
[args.out]
buffer = "float"
count = "64"
contents = "zeros"
---*/
#line 1
#define BINS 300

__kernel void classify(__global const float *x, __global float *out)
{
    int i = get_global_id(0);
    float v = x[i];
    int hist[BINS];
    for (int b = 0; b < BINS - 1; b++)  /* the last bin is never cleared */
        hist[b] = 0;
    hist[(int)(fabs(v) * (BINS - 1)) % BINS] += 1;
    float r = (float)hist[BINS - 1];
    switch (i & 3) {
        float t[2];
    case 0:
        t[0] = v;
        r += t[0];
        break;
    default:
        t[1] = 1.0f;
        r += t[1] + t[0];  /* t[0] is set in case 0 only */
        break;
    }
    if (i & 4)
        goto again;
    {
        float g[2];
        g[0] = v;
again:
        g[1] = 2.0f;
        r += g[1] + g[0];  /* g[0] is skipped by the goto */
    }
    out[i] = r;
}
