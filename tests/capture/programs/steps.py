"""A host program that launches one kernel STEPS times on a buffer of SIZE floats, PAUSE
seconds apart, writing its process id to PIDFILE first (for a test to signal it). Prints the
buffer's sum at the end and exits 3, a code of its own."""

import os
import sys
import time

import numpy as np
import pyopencl as cl

steps, size, pause, pidfile = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
with open(pidfile, "w") as handle:
    handle.write(str(os.getpid()))
context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
program = cl.Program(
    context, "__kernel void advance(__global float *a, int n) { a[get_global_id(0)] += n; }"
).build()
advance = cl.Kernel(program, "advance")
a = np.zeros(size, dtype=np.float32)
a_buf = cl.Buffer(context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=a)
for n in range(steps):
    advance(queue, (size,), None, a_buf, np.int32(n))
    print(f"step {n}", flush=True)
    time.sleep(pause)
cl.enqueue_copy(queue, a, a_buf)
print(f"sum {a.sum():.1f}")
sys.exit(3)
