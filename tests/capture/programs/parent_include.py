"""A kernel whose header includes another through "../" (``sub/inner.h`` includes
``../common.h``), all in the program's -I folder, given relative to the folder it runs in."""

import os
from pathlib import Path

import numpy as np
import pyopencl as cl

os.chdir(Path(__file__).parent / "include")
source = """#include <top.h>
__kernel void both(__global int *a) {
    int i = get_global_id(0);
    a[i] = THRICE(a[i]) + TWICE(i);
}
"""
context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
program = cl.Program(context, source).build(options="-I nested")
a = np.arange(16, dtype=np.int32)
buf = cl.Buffer(context, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=a)
program.both(queue, (16,), (8,), buf)
cl.enqueue_copy(queue, a, buf)
print(a[:4].tolist())
