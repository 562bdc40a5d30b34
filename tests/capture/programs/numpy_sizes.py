"""Launch sizes given as numpy integers: pyopencl's scan launches its kernels so (with
``g_times_l``), and a program may pass ``np.int64`` sizes and offsets itself."""

import numpy as np
import pyopencl as cl
import pyopencl.array as cl_array
from pyopencl.scan import InclusiveScanKernel

context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
values = np.arange(1, 3001, dtype=np.int32)
scan = InclusiveScanKernel(context, np.int32, "a+b", neutral="0")
totals = scan(cl_array.to_device(queue, values)).get()
assert np.array_equal(totals, np.cumsum(values)), totals[-4:]
program = cl.Program(context, "__kernel void twice(__global int *x) { x[get_global_id(0)] *= 2; }")
twice = program.build().twice
x = cl_array.to_device(queue, values)
twice(queue, (np.int64(4),), (np.int64(16),), x.data, g_times_l=True)
assert x.get()[:64].sum() == 2 * values[:64].sum()
print(f"scanned {int(totals[-1])}")
