/*---
name = "double-buffered async copies in a loop without the barrier that ends each read"
family = "custom"
kernel = "k"
global = ["N"]
local = ["32"]
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
#define CHUNK 32
#define STEPS 4
__kernel void k(__global const float *src, __global float *out)
{
    __local float buf[2][CHUNK];
    event_t ev[2];
    const size_t l = get_local_id(0), base = get_group_id(0) * CHUNK;
    const size_t n = get_global_size(0);
    float acc = 0.0f;
    ev[0] = async_work_group_copy(buf[0], src + base, CHUNK, 0);
    for (int s = 0; s < STEPS; s++) {
        int cur = s & 1, nxt = cur ^ 1;
        if (s + 1 < STEPS)
            ev[nxt] = async_work_group_copy(buf[nxt], src + (base + (s + 1) * CHUNK) % n, CHUNK, 0);
        wait_group_events(1, &ev[cur]);
        acc += buf[cur][l];
    }
    out[base + l] = acc;
}
