"""Jacobi on a 2-D grid: one kernel object, set_args + enqueue_nd_range_kernel in a loop
with ping-pong buffers; read back only at the end."""

import numpy as np
import pyopencl as cl

ctx = cl.create_some_context(interactive=False)
q = cl.CommandQueue(ctx)
W, H, ITERS = 24, 20, 5
src = """
__kernel void jacobi(__global const float *u, __global float *v, int w, int h) {
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= w || y >= h) return;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1) { v[y * w + x] = u[y * w + x]; return; }
    v[y * w + x] = 0.25f * (u[y * w + x - 1] + u[y * w + x + 1]
                            + u[(y - 1) * w + x] + u[(y + 1) * w + x]);
}"""
prg = cl.Program(ctx, src).build()
k = cl.Kernel(prg, "jacobi")
g = np.zeros((H, W), np.float32)
g[0, :] = 1.0
mf = cl.mem_flags
bufs = [
    cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=g),
    cl.Buffer(ctx, mf.READ_WRITE, g.nbytes),
]
for it in range(ITERS):
    k.set_args(bufs[it % 2], bufs[(it + 1) % 2], np.int32(W), np.int32(H))
    cl.enqueue_nd_range_kernel(q, k, (32, 24), (8, 8))
res = np.empty_like(g)
cl.enqueue_copy(q, res, bufs[ITERS % 2])
ref = g.copy()
for _ in range(ITERS):
    n = ref.copy()
    n[1:-1, 1:-1] = 0.25 * (ref[1:-1, :-2] + ref[1:-1, 2:] + ref[:-2, 1:-1] + ref[2:, 1:-1])
    ref = n
print("jacobi", bool(np.allclose(res, ref)), round(float(res.sum()), 4))
