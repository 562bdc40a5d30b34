/*---
name = "several private arrays in one declaration, some given values"
family = "custom"
kernel = "smooth"
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
#define TAPS 4
#define AT(k) x[(i + (k)) % 64]

__kernel void smooth(__global const float *x, __global float *out)
{
    int i = get_global_id(0);
    float win[TAPS] = {0}, prev[TAPS];
    float diff[TAPS], weight[TAPS] = {0.4f, 0.3f, 0.2f, 0.1f};
    int n, hits[TAPS];
    for (int k = 0; k < TAPS; k++)
        win[k] = AT(k);
    for (n = 0; n < TAPS - 1; n++) {
        prev[n] = win[n + 1];
        diff[n + 1] = win[n + 1] - win[n];
        hits[n] = win[n] > 0.5f;
    }
    float s = 0.0f;
    for (int k = 0; k < TAPS; k++)
        s += weight[k] * (win[k] + prev[k] + diff[k]) + (float)hits[k];
    out[i] = s;
}
