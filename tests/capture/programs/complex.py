"""Complex numbers as pyopencl gives them: an ElementwiseKernel on complex64 arrays that
includes pyopencl's own pyopencl-complex.h, and an array expression of complex arrays (whose
kernel includes it too); prints the products' sum."""

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
from pyopencl.elementwise import ElementwiseKernel

context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
n = 64
a = (np.arange(n) + 1j * np.arange(n)[::-1]).astype(np.complex64)
b = (np.cos(np.arange(n)) - 2j).astype(np.complex64)
x, y = cla.to_device(queue, a), cla.to_device(queue, b)
z = cla.empty_like(x)
multiply = ElementwiseKernel(
    context,
    "cfloat_t *z, const cfloat_t *x, const cfloat_t *y",
    "z[i] = cfloat_mul(x[i], y[i])",
    "multiply",
    preamble="#include <pyopencl-complex.h>",
)
multiply(z, x, y)
w = x * y + z
assert np.allclose(z.get(), a * b, rtol=1e-5) and np.allclose(w.get(), 2 * a * b, rtol=1e-5)
print(f"sum {complex(w.get().sum()):.3f}")
