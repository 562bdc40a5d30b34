"""argv[3] launches of one small kernel while the program plays with its capture's journal
(argv[2]/journal.jsonl), as argv[1] says: "kill" ends the program by SIGKILL after them (a
line may be cut short), "truncate" empties the journal halfway (the recorder's later lines
are written from its start), "fork" has a child append lines of its own from halfway on,
some in two writes (between which the recorder may write one), while the launches go on,
"flood" appends 600,000 lines of ``{}`` to it halfway. Prints the result's sum, but where killed."""

import os
import signal
import sys
import time

import numpy as np
import pyopencl as cl

mode, folder, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
journal = os.path.join(folder, "journal.jsonl")
context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
program = cl.Program(context, "__kernel void inc(__global int *v) { v[get_global_id(0)] += 1; }")
inc = program.build().inc
values = np.zeros(16, np.int32)
buffer = cl.Buffer(context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=values)
child = None
for number in range(count):
    inc(queue, (16,), None, buffer)
    if number % 100 == 99:
        time.sleep(0.03)  # the journal's lines are taken while it runs
    if number == count // 2:
        if mode == "truncate":
            os.truncate(journal, 0)
        elif mode == "flood":
            with open(journal, "ab", buffering=0) as handle:
                handle.write(b"{}\n" * 600_000)
        elif mode == "fork":
            child = os.fork()
            if child == 0:
                with open(journal, "ab", buffering=0) as handle:
                    for _ in range(50):
                        handle.write(b'{"type": "lost", "why": "the child"}\n{"type": "lo')
                        handle.write(b'st", "why": "the child, in two writes"}\n')
                        time.sleep(0.005)
                os._exit(0)
if mode == "kill":
    os.kill(os.getpid(), signal.SIGKILL)
if child is not None:
    os.waitpid(child, 0)
cl.enqueue_copy(queue, values, buffer)
print(f"sum {int(values.sum())}")
