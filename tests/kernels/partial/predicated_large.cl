/*---
name = "A predicated store at a large launch: two elements of three written (20,480 work-items)"
family = "custom"
kernel = "thirds"
global = ["N"]
local = ["256"]
[sizes]
N = 20480
[args.src]
buffer = "float"
count = "N"
access = "read"
[args.out]
buffer = "float"
count = "N"
contents = "zeros"
[reference.numpy]
out = "where(arange(N) % 3 != 0, 2 * src, out)"
---*/
#line 1
/* Above the size where a trace is built with the optimiser: the store stays under its
 * predicate in either build, and the elements it skips keep the host's zeros. */
__kernel void thirds(__global const float* src, __global float* out)
{
    int i = get_global_id(0);
    if (i % 3 != 0)
        out[i] = 2.0f * src[i];
}
