/*---
name = "a large private histogram, and jumps that stay inside a private array's scope"
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
    for (int b = 0; b < BINS; b++)
        hist[b] = 0;
    hist[(int)(fabs(v) * (BINS - 1)) % BINS] += 1;
    float r = (float)hist[BINS - 1];
    float t[2];
    switch (i & 3) {
    case 0:
        t[0] = v;
        r += t[0];
        break;
    default:
        t[1] = 1.0f;
        r += t[1];
        break;
    }
    {
        float g[2];
        int n = 0;
again:
        g[n] = 2.0f;
        if (++n < 2)
            goto again;
        r += g[1] + g[0];
    }
    out[i] = r;
}
