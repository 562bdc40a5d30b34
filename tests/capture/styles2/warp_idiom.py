"""Two bugs real ports carry, launched from a host loop: a block sum that unrolls its last
steps without barriers (CUDA's warp-synchronous idiom, a race in OpenCL), on local memory
sized by the host; and a forward difference guarded by i < n that reads x[n]."""

import numpy as np
import pyopencl as cl

ctx = cl.create_some_context(interactive=False)
q = cl.CommandQueue(ctx)
prg = cl.Program(
    ctx,
    """
__kernel void block_sum(__global const float *x, __global float *out, __local float *s) {
    int l = get_local_id(0), L = get_local_size(0);
    s[l] = x[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int o = L / 2; o > 32; o >>= 1) {
        if (l < o) s[l] += s[l + o];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (l < 32) {
        for (int o = 32; o > 0; o >>= 1) s[l] += s[l + o];
    }
    if (l == 0) out[get_group_id(0)] = s[0];
}
__kernel void diff(__global const float *x, __global float *d, int n) {
    int i = get_global_id(0);
    if (i < n) d[i] = x[i + 1] - x[i];
}
""",
).build()
L = 128
n = 4 * L
rng = np.random.default_rng(4)
mf = cl.mem_flags
x = cl.Buffer(ctx, mf.READ_ONLY, n * 4)
out = cl.Buffer(ctx, mf.WRITE_ONLY, 4 * 4)
d = cl.Buffer(ctx, mf.WRITE_ONLY, n * 4)
block_sum, diff = prg.block_sum, prg.diff
for step in range(2):
    xh = rng.integers(0, 8, n).astype(np.float32)
    cl.enqueue_copy(q, x, xh)
    block_sum(q, (n,), (L,), x, out, cl.LocalMemory(L * 4))
    diff(q, (n,), (64,), x, d, np.int32(n))
    sums = np.empty(4, np.float32)
    cl.enqueue_copy(q, sums, out)
    dh = np.empty(n - 1, np.float32)
    cl.enqueue_copy(q, dh, d)
    print(step, sums.tolist() == xh.reshape(4, L).sum(1).tolist(), bool((dh == np.diff(xh)).all()))
