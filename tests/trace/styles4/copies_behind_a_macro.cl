/*---
name = "three async copies into one tile behind a macro, in a loop and a block"
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
#define FETCH(dst, off) async_work_group_copy((dst), src + (off), 16, 0)
__kernel void k(__global const float *src, __global float *out)
{
    __local float tile[16];
    const size_t base = get_group_id(0) * 16, l = get_local_id(0);
    float acc = 0.0f;
    for (int r = 0; r < 2; r++) {
        event_t e = FETCH(tile, (base + r * 16) % get_global_size(0));
        wait_group_events(1, &e);
        acc += tile[l];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    {
        event_t e;
        e = FETCH(tile, base);
        wait_group_events(1, &e);
    }
    out[base + l] = acc + tile[l];
}
