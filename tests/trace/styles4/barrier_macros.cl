/*---
name = "barriers behind macros, a rotation through the tile without its first barrier"
family = "custom"
kernel = "k"
global = ["N"]
local = ["16"]
[sizes]
N = 64
[args.src]
buffer = "float"
count = "N"
access = "read"
[args.out]
buffer = "float"
count = "N"
contents = "zeros"
---*/
#define SYNC barrier(CLK_LOCAL_MEM_FENCE)
#define SYNC_ALL() barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)
#define ROTATE(t, l) do { float tmp_ = t[((l) + 1) & 15]; t[l] = tmp_; SYNC; } while (0)
__kernel void k(__global const float *src, __global float *out)
{
    __local float t[16];
    int l = get_local_id(0);
    t[l] = src[get_global_id(0)];
    SYNC;
    ROTATE(t, l);
    ROTATE(t, l);
    SYNC_ALL();
    out[get_global_id(0)] = t[l];
}
