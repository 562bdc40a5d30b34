"""One kernel launched many times (argv[1], default 200) on the same arguments, adding an
input into an accumulator; the host changes the input halfway. Prints the first sums."""

import sys

import numpy as np
import pyopencl as cl

source = """
__kernel void accumulate(__global float *total, __global const float *step)
{
    int i = get_global_id(0);
    total[i] += step[i];
}
"""
launches = int(sys.argv[1]) if len(sys.argv) > 1 else 200
n = 64
context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
kernel = cl.Kernel(cl.Program(context, source).build(), "accumulate")
mf = cl.mem_flags
total = cl.Buffer(context, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.zeros(n, np.float32))
steps = np.arange(n, dtype=np.float32)
step = cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=steps)
for number in range(1, launches + 1):
    kernel(queue, (n,), None, total, step)
    if number == launches // 2:
        cl.enqueue_copy(queue, step, 2 * steps)
result = np.empty(n, np.float32)
cl.enqueue_copy(queue, result, total)
print(" ".join(f"{v:g}" for v in result[:4]))
