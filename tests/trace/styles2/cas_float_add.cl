/*---
name = "Float sum by a compare-and-swap loop on the global total"
family = "custom"
kernel = "cas_sum"
global = ["64"]
local = ["16"]
[args.x]
buffer = "float"
count = "64"
access = "read"
[args.total]
buffer = "float"
count = "1"
contents = "zeros"
access = "readwrite"
---*/
#line 1
void atomic_add_float(volatile __global float *p, float v)
{
    union { unsigned int u; float f; } old, next;
    do {
        old.f = *p;
        next.f = old.f + v;
    } while (atomic_cmpxchg((volatile __global unsigned int *)p, old.u, next.u) != old.u);
}

__kernel void cas_sum(__global const float *x, __global float *total)
{
    atomic_add_float(total, x[get_global_id(0)]);
}
