/*---
name = "NAN, INFINITY, MAXFLOAT and HUGE_VALF as a kernel's bounds"
family = "custom"
kernel = "bounds"
global = ["64"]
local = ["16"]
[args.x]
buffer = "float"
count = "64"
access = "read"
[args.low]
buffer = "float"
count = "4"
contents = "zeros"
[args.flags]
buffer = "int"
count = "64"
contents = "zeros"
---*/
#line 1
__kernel void bounds(__global const float *x, __global float *low, __global int *flags)
{
    int i = get_global_id(0);
    float smallest = INFINITY;
    float largest = -MAXFLOAT;
    float v = x[i] < 0.0f ? NAN : x[i];
    smallest = fmin(smallest, v);
    largest = fmax(largest, v);
    flags[i] = isnan(v) + 2 * isinf(HUGE_VALF) + 4 * (largest < HUGE_VALF) + 8 * isnan(NAN);
    if (i == 0) {
        low[0] = smallest;
        low[1] = largest;
        low[2] = NAN;
        low[3] = -INFINITY;
    }
}
