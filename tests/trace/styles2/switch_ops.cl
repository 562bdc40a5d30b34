/*---
name = "An operation per element chosen by a switch, with a while loop that skips by continue"
family = "custom"
kernel = "ops"
global = ["64"]
local = ["16"]
[args.op]
buffer = "int"
count = "64"
contents = "iota"
access = "read"
[args.a]
buffer = "float"
count = "64"
access = "read"
[args.out]
buffer = "float"
count = "64"
contents = "zeros"
access = "write"
writes = "all"
---*/
#line 1
__kernel void ops(__global const int *op, __global const float *a, __global float *out)
{
    int i = get_global_id(0);
    float v;
    switch (op[i] & 3) {
    case 0:
        v = a[i];
        break;
    case 1:
        v = a[i - 1];
        break;
    case 2:
        v = -a[i];
        break;
    default: {
        int k = 0;
        v = 0.0f;
        while (k < 4) {
            k++;
            if (k == 2)
                continue;
            v += a[(i + k) & 63];
        }
    }
    }
    out[i] = v;
}
