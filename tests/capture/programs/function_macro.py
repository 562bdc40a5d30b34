"""A kernel whose build defines a function-like macro and a float through -D options
(``-DOP(a,b)=((a)+2*(b))``, ``-DSCALE=0.5f``), launched twice on one buffer."""

import numpy as np
import pyopencl as cl

ctx = cl.create_some_context(interactive=False)
q = cl.CommandQueue(ctx)
src = """
__kernel void blend(__global float *y, __global const float *x) {
    int i = get_global_id(0);
    y[i] = OP(y[i], x[i]) * SCALE;
}
"""
prg = cl.Program(ctx, src).build(options=["-DOP(a,b)=((a)+2*(b))", "-DSCALE=0.5f"])
n = 16
x = np.arange(n, dtype=np.float32)
mf = cl.mem_flags
yb = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.ones(n, np.float32))
xb = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
blend = prg.blend
for _ in range(2):
    blend(q, (n,), None, yb, xb)
y = np.empty(n, np.float32)
cl.enqueue_copy(q, y, yb)
print("blend", y[:3].tolist())
