"""A kernel with an off-by-one (each thread writes i+1); the host's check fails and the
program exits 3."""

import sys

import numpy as np
import pyopencl as cl

ctx = cl.create_some_context(interactive=False)
q = cl.CommandQueue(ctx)
prg = cl.Program(
    ctx,
    """
__kernel void shift(__global const int *a, __global int *b, int n) {
    int i = get_global_id(0);
    if (i < n) b[i + 1] = a[i]; }
""",
).build()
n = 30
a = np.arange(n, dtype=np.int32)
mf = cl.mem_flags
ab = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=a)
bb = cl.Buffer(ctx, mf.READ_WRITE, (n + 2) * 4)
cl.enqueue_fill_buffer(q, bb, np.int32(0), 0, (n + 2) * 4)
prg.shift(q, (32,), (32,), ab, bb, np.int32(n))
h = np.empty(n, np.int32)
cl.enqueue_copy(q, h, bb)
if not (h == a).all():
    print("check failed at", int(np.argmax(h != a)))
    sys.exit(3)
print("ok")
