"""One buffer passed twice (an in-place update: ``a`` is also ``out``) and sub-buffers of
one allocation passed as separate arguments."""

import numpy as np
import pyopencl as cl

source = """
__kernel void add(__global const float *a, __global const float *b, __global float *out)
{
    int i = get_global_id(0);
    out[i] = a[i] + b[i];
}
"""
context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
add = cl.Kernel(cl.Program(context, source).build(), "add")
mf = cl.mem_flags
n = 64
align = context.devices[0].mem_base_addr_align // 8  # bytes a sub-buffer must start on
step = max(n * 4, align)
data = np.arange((step + n * 4) // 4, dtype=np.float32)  # room for both, whatever the device
whole = cl.Buffer(context, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=data)
first = whole.get_sub_region(0, n * 4)
second = whole.get_sub_region(step, n * 4)
ones = cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=np.ones(n, np.float32))

add(queue, (n,), None, first, ones, first)  # in place: a and out are one buffer
add(queue, (n,), (16,), first, second, second)  # two sub-buffers of one allocation
result = np.empty_like(data)
cl.enqueue_copy(queue, result, whole)
print(f"{result[0]:.1f} {result[step // 4]:.1f}")
