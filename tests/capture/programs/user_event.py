"""Work held back by a user event the host completes afterwards: two launches on a buffer of
1.2 MB (past what is read behind a launch) wait for the gate, the host then opens it; a
third launch comes after (with ``fill``, a fill waits for the gate and the first launch
follows it in the queue). With ``never`` as its argument, the program gives up (exit code 1)
with a small launch still waiting for the gate."""

import sys

import numpy as np
import pyopencl as cl

ctx = cl.create_some_context(interactive=False)
q = cl.CommandQueue(ctx)
prg = cl.Program(ctx, "__kernel void add1(__global int *a) { a[get_global_id(0)] += 1; }").build()
add1 = prg.add1
gate = cl.UserEvent(ctx)
if sys.argv[1:] == ["never"]:
    small = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64)
    add1(q, (16,), None, small, wait_for=[gate])
    sys.exit("gave up before opening the gate")
n = 300_000
a = np.zeros(n, np.int32)
b = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=a)
if sys.argv[1:] == ["fill"]:  # the gate held by a fill (pyopencl passes wait_for by place)
    cl.enqueue_fill_buffer(q, b, np.int32(0), 0, a.nbytes, wait_for=[gate])
    first = add1(q, (n,), None, b)
else:
    first = add1(q, (n,), None, b, wait_for=[gate])
add1(q, (n,), None, b, wait_for=[first])
gate.set_status(cl.command_execution_status.COMPLETE)
add1(q, (n,), None, b)
cl.enqueue_copy(q, a, b)
print("gate", int(a.min()), int(a.max()))
