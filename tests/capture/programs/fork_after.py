"""Launches a kernel, forks a child that ends through sys.exit (its exit handlers run), then
launches again; prints the child's exit code and the buffer's sum."""

import os
import sys

import numpy as np
import pyopencl as cl

context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
program = cl.Program(context, "__kernel void inc(__global int *v) { v[get_global_id(0)] += 1; }")
inc = program.build().inc
values = np.zeros(16, np.int32)
buffer = cl.Buffer(context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=values)
for _ in range(40):
    inc(queue, (16,), None, buffer)
child = os.fork()
if child == 0:
    sys.exit(3)
_, status = os.waitpid(child, 0)
for _ in range(40):
    inc(queue, (16,), None, buffer)
cl.enqueue_copy(queue, values, buffer)
print(f"child {os.waitstatus_to_exitcode(status)} sum {int(values.sum())}")
