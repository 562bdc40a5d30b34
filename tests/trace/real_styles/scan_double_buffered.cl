/*---
name = "Hillis-Steele inclusive scan, double-buffered"
family = "custom"
kernel = "scan"
global = ["256"]
local = ["256"]
[args.in]
buffer = "int"
count = "256"
access = "read"
[args.out]
buffer = "int"
count = "256"
contents = "zeros"
writes = "all"
[args.tmp]
local = "int"
count = "2 * L0"
[reference]
numpy = "np.cumsum(in)"
---*/
#line 1
__kernel void scan(__global const int *in, __global int *out, __local int *tmp)
{
    int l = get_local_id(0), n = get_local_size(0);
    int pout = 0, pin = 1;
    tmp[pout * n + l] = in[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int off = 1; off < n; off <<= 1) {
        pout = 1 - pout;
        pin = 1 - pout;
        if (l >= off)
            tmp[pout * n + l] = tmp[pin * n + l] + tmp[pin * n + l - off];
        else
            tmp[pout * n + l] = tmp[pin * n + l];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    out[get_global_id(0)] = tmp[pout * n + l];
}
