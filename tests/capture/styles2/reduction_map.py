"""ReductionKernel with map_expr and arguments: a weighted sum of squares, and a dot."""

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
from pyopencl.reduction import ReductionKernel

ctx = cl.create_some_context(interactive=False)
q = cl.CommandQueue(ctx)
n = 5000
rng = np.random.default_rng(3)
x = cla.to_device(q, rng.integers(-50, 50, n).astype(np.int32))
w = cla.to_device(q, rng.integers(0, 4, n).astype(np.int32))
k = ReductionKernel(
    ctx,
    np.int64,
    neutral="0",
    reduce_expr="a+b",
    map_expr="(long)w[i] * x[i] * x[i] + offset",
    arguments="__global const int *x, __global const int *w, long offset",
)
got = k(x, w, np.int64(1)).get()
xh, wh = x.get().astype(np.int64), w.get().astype(np.int64)
print(int(got), int(got) == int((wh * xh * xh + 1).sum()))
