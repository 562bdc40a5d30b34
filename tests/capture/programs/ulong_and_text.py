"""A host program that fills a buffer with a ``ulong`` scalar of 2**64 - 1, the largest there
is; the text it is given (what a kernel file's header must escape) is only on its command
line, which a replay's header names. Prints the first element it read back."""

import sys

import numpy as np
import pyopencl as cl

context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
program = cl.Program(
    context, "__kernel void fill(__global ulong *out, ulong v) { out[get_global_id(0)] = v; }"
).build()
host = np.zeros(16, dtype=np.uint64)
out = cl.Buffer(context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=host)
cl.Kernel(program, "fill")(queue, (16,), None, out, np.uint64(2**64 - 1))
cl.enqueue_copy(queue, host, out)
print(host[0], len(sys.argv) - 1)
