"""pyopencl.array with a MemoryPool allocator (the buffers are pooled and reused once an
array is freed), in a loop: new arrays each step, arithmetic, a dot product, a custom kernel
on .data."""

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
import pyopencl.tools as clt

ctx = cl.create_some_context(interactive=False)
q = cl.CommandQueue(ctx)
pool = clt.MemoryPool(clt.ImmediateAllocator(q))
prg = cl.Program(
    ctx,
    """
__kernel void halve_odd(__global float *v, int n) {
    int i = get_global_id(0);
    if (i < n && (i & 1)) v[i] *= 0.5f;
}""",
).build()
halve = prg.halve_odd
rng = np.random.default_rng(8)
dots = []
for step in range(3):
    xh = rng.integers(0, 10, 200).astype(np.float32)
    x = cla.to_device(q, xh, allocator=pool)
    y = (x * 2 + 1).astype(np.float32)
    halve(q, (256,), (64,), y.data, np.int32(y.size))
    dots.append(float(cla.dot(x, y).get()))
    yh = xh * 2 + 1
    yh[1::2] *= 0.5
    assert np.allclose(y.get(), yh), step
    del x, y
print("pool", dots)
