/*---
name = "ping-pong between two local arrays chosen by a ternary"
family = "custom"
kernel = "pp"
global = ["128"]
local = ["64"]
[args.in]
buffer = "float"
count = "128"
access = "read"
[args.out]
buffer = "float"
count = "128"
contents = "zeros"
writes = "all"
---*/
#line 1
__kernel void pp(__global const float *in, __global float *out)
{
    __local float A[64], B[64];
    int l = get_local_id(0), g = get_global_id(0);
    A[l] = in[g];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int it = 0; it < 4; it++) {
        __local float *src = (it & 1) ? B : A;
        __local float *dst = (it & 1) ? A : B;
        dst[l] = 0.5f * (src[l] + src[(l + 1) & 63]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[g] = A[l];
}
