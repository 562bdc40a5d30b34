"""A host program with three kernels: scale once, relax STEPS times in a loop (two buffers
used in turn), then per-group sums. Prints the total; exits 0."""

import sys
from pathlib import Path

import numpy as np
import pyopencl as cl

n = int(sys.argv[1]) if len(sys.argv) > 1 else 100
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 4
group = 32

context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
source = (Path(__file__).parent / "pipeline.cl").read_text()
program = cl.Program(context, source).build()
scale = cl.Kernel(program, "scale")
relax = cl.Kernel(program, "relax")
total = cl.Kernel(program, "total")

x = np.random.default_rng(7).uniform(0, 1, n).astype(np.float32)
mf = cl.mem_flags
x_buf = cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
a_buf = cl.Buffer(context, mf.READ_WRITE, size=x.nbytes)
b_buf = cl.Buffer(context, mf.READ_WRITE, size=x.nbytes)
padded = (n + group - 1) // group * group
groups = padded // group
partial_buf = cl.Buffer(context, mf.WRITE_ONLY, size=4 * groups)

scale(queue, (padded,), (group,), x_buf, a_buf, np.float32(2.0), np.int32(n))
source_buf, target_buf = a_buf, b_buf
for _ in range(steps):
    relax.set_args(source_buf, target_buf, cl.LocalMemory(4 * (group + 2)), np.int32(n))
    cl.enqueue_nd_range_kernel(queue, relax, (padded,), (group,))
    source_buf, target_buf = target_buf, source_buf
total(queue, (padded,), (group,), source_buf, partial_buf, cl.LocalMemory(4 * group), np.int32(n))
partial = np.empty(groups, np.float32)
cl.enqueue_copy(queue, partial, partial_buf)
print(f"total {partial.sum():.4f}")
