"""argv[2] launches of one small kernel; halfway, the program itself appends lines to the
capture's journal (argv[1]/journal.jsonl) that look like the recorder's launch lines but are
not: one not JSON, one nested too deep, one naming another kernel inside an argument. Prints
the result's sum."""

import os
import sys

import numpy as np
import pyopencl as cl

folder, count = sys.argv[1], int(sys.argv[2])
context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
program = cl.Program(context, "__kernel void inc(__global int *v) { v[get_global_id(0)] += 1; }")
inc = program.build().inc
values = np.zeros(16, np.int32)
buffer = cl.Buffer(context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=values)
deep = "[" * 31 + "]" * 31
damaged = (
    '{"type": "launch", "kernel": "inc", "number": 0, oops}\n'
    f'{{"type": "launch", "kernel": "inc", "deep": {deep}}}\n'
)
for number in range(count):
    inc(queue, (16,), None, buffer)
    if number == count // 2:
        with open(os.path.join(folder, "journal.jsonl"), "ab", buffering=0) as journal:
            journal.write(damaged.encode())
cl.enqueue_copy(queue, values, buffer)
print(f"sum {int(values.sum())}")
