"""One launch on one buffer of argv[1] MiB (64 by default), its host copy freed before the
launch. Prints the sum of the result, and on stderr the process's peak memory in KiB."""

import resource
import sys

import numpy as np
import pyopencl as cl

mib = int(sys.argv[1]) if len(sys.argv) > 1 else 64
count = mib << 18  # int32 values
context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
program = cl.Program(
    context,
    """
__kernel void bump(__global int *v) { v[get_global_id(0)] += 1; }
""",
).build()
values = np.arange(count, dtype=np.int32) % 1000
buffer = cl.Buffer(context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=values)
del values
program.bump(queue, (count,), None, buffer)
head = np.empty(1000, np.int32)
cl.enqueue_copy(queue, head, buffer)
print(f"head sum {int(head.sum())}")
print(f"peak {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}", file=sys.stderr)
