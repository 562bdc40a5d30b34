"""pyopencl's own kernels: an array expression, an ElementwiseKernel on a slice of an array
(a buffer offset), and, where Mako is installed, a sum (a ReductionKernel)."""

import numpy as np
import pyopencl as cl
import pyopencl.array as cla
from pyopencl.elementwise import ElementwiseKernel

context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)

x = cla.to_device(queue, np.linspace(-1, 1, 300).astype(np.float32))
y = cla.to_device(queue, np.arange(300, dtype=np.float32))
z = 2 * x + x * y  # an array expression: pyopencl's own elementwise kernels
shift = ElementwiseKernel(
    context, "float *a, const float b, const int *c", "a[i] = a[i] * b + c[i]", "shift_by"
)
counts = cla.to_device(queue, np.arange(100, dtype=np.int32) % 7)
window = z[100:200]  # a view 400 bytes into z's buffer
shift(window, np.float32(0.5), counts)
result = z.get()
try:
    import mako  # noqa: F401 -- pyopencl's reductions are Mako templates
except ImportError:
    print(f"z[150] {result[150]:.4f}")
else:
    print(f"z[150] {result[150]:.4f} sum {cla.sum(z).get():.3f}")
