"""Reductions of complex numbers on the device: pyopencl.array's sum of a complex64 array
(a two-stage ReductionKernel over pyopencl's complex type) and a ReductionKernel of our own
for the complex dot product sum(conj(a) * b); prints both beside numpy's."""

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
from pyopencl.reduction import ReductionKernel

context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
n = 700
t = np.arange(n, dtype=np.float32)
a = (np.cos(t / 50) + 1j * np.sin(t / 70)).astype(np.complex64)
b = (0.5 - 0.25j * np.cos(t / 30)).astype(np.complex64)
a_dev = cla.to_device(queue, a)
b_dev = cla.to_device(queue, b)

total = cla.sum(a_dev).get()
dot = ReductionKernel(
    context,
    np.complex64,
    neutral="cfloat_fromreal(0)",
    reduce_expr="cfloat_add(a, b)",
    map_expr="cfloat_mul(cfloat_conj(x[i]), y[i])",
    arguments="const cfloat_t *x, const cfloat_t *y",
    preamble="#include <pyopencl-complex.h>",
)
product = dot(a_dev, b_dev).get()
print(f"sum {complex(total):.2f} numpy {complex(a.sum()):.2f}")
print(f"dot {complex(product):.2f} numpy {complex(np.vdot(a, b)):.2f}")
