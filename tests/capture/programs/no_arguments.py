"""A kernel without parameters, launched as a latency benchmark launches one (pyopencl's
dump-performance example does), then one that writes a buffer."""

import numpy as np
import pyopencl as cl

context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
program = cl.Program(
    context,
    """
__kernel void empty(void) { }
__kernel void ones(__global int *out) { out[get_global_id(0)] = 1; }
""",
).build()
for _ in range(3):
    program.empty(queue, (1,), None)
out = cl.Buffer(context, cl.mem_flags.WRITE_ONLY, 4 * 16)
program.ones(queue, (16,), None, out)
host = np.zeros(16, np.int32)
cl.enqueue_copy(queue, host, out)
print(int(host.sum()))
