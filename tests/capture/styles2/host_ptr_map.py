"""USE_HOST_PTR on a numpy array the host keeps writing, and ALLOC_HOST_PTR filled and
read through map_buffer."""

import numpy as np
import pyopencl as cl

ctx = cl.create_some_context(interactive=False)
q = cl.CommandQueue(ctx)
mf = cl.mem_flags
n = 128
prg = cl.Program(
    ctx,
    """
__kernel void axpy(__global const float *x, __global float *y, float a) {
    int i = get_global_id(0);
    y[i] = a * x[i] + y[i]; }
""",
).build()
xh = np.arange(n, dtype=np.float32)
x = cl.Buffer(ctx, mf.READ_ONLY | mf.USE_HOST_PTR, hostbuf=xh)
y = cl.Buffer(ctx, mf.READ_WRITE | mf.ALLOC_HOST_PTR, size=n * 4)
m, _ = cl.enqueue_map_buffer(q, y, cl.map_flags.WRITE, 0, (n,), np.float32)
m[:] = 1.0
m.base.release(q)
prg.axpy(q, (n,), (32,), x, y, np.float32(2.0))
q.finish()
xh[:] = 10.0  # the host writes its own memory between launches
prg.axpy(q, (n,), (32,), x, y, np.float32(0.5))
m, _ = cl.enqueue_map_buffer(q, y, cl.map_flags.READ, 0, (n,), np.float32)
got = m.copy()
m.base.release(q)
ref = 2 * np.arange(n, dtype=np.float32) + 1 + 5
print("hostptr", bool(np.allclose(got, ref)), float(got[:4].sum()))
