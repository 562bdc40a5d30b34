"""Imports pyopencl, then hands work to a pool of two workers started by fork and then by
spawn (argv[1]: "fork", "spawn" or both, comma-separated), each building and launching a
kernel of its own; then launches one in the main process. Prints each result; exits 0."""

import multiprocessing
import sys

import numpy as np
import pyopencl as cl

SOURCE = "__kernel void square(__global int *v) { int i = get_global_id(0); v[i] *= v[i]; }"


def work(start: int) -> int:
    context = cl.create_some_context(interactive=False)
    queue = cl.CommandQueue(context)
    kernel = cl.Kernel(cl.Program(context, SOURCE).build(), "square")
    values = np.arange(start, start + 16, dtype=np.int32)
    buffer = cl.Buffer(
        context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=values
    )
    kernel(queue, (16,), None, buffer)
    cl.enqueue_copy(queue, values, buffer)
    return int(values.sum())


if __name__ == "__main__":
    for method in (sys.argv[1] if len(sys.argv) > 1 else "fork,spawn").split(","):
        with multiprocessing.get_context(method).Pool(2) as pool:
            print(method, pool.map_async(work, [0, 100]).get(timeout=60))
    print("main", work(1000))
