"""argv[1] launches (10,000 by default) of one small kernel, by Kernel.__call__; prints the
result's sum."""

import sys

import numpy as np
import pyopencl as cl

count = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
program = cl.Program(context, "__kernel void inc(__global int *v) { v[get_global_id(0)] += 1; }")
inc = program.build().inc
values = np.zeros(16, np.int32)
buffer = cl.Buffer(context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=values)
for _ in range(count):
    inc(queue, (16,), None, buffer)
cl.enqueue_copy(queue, values, buffer)
print(f"sum {int(values.sum())}")
