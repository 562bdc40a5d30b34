"""A program whose kernel includes two files of its own: one found in the folder it runs in
(``#include "weights.h"``), one through ``-I more``, as many real programs build."""

import os
from pathlib import Path

import numpy as np
import pyopencl as cl

os.chdir(Path(__file__).parent / "include")
source = """#include "weights.h"
#include "offset.h"
__kernel void weigh(__global const float *x, __global float *y)
{
    int i = get_global_id(0);
    y[i] = offset(WEIGHT * x[i]);
}
"""
x = np.arange(64, dtype=np.float32)
context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
program = cl.Program(context, source).build(options=["-I", "more", "-I", "."])
mf = cl.mem_flags
x_buf = cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
y_buf = cl.Buffer(context, mf.WRITE_ONLY, size=x.nbytes)
program.weigh(queue, (64,), (16,), x_buf, y_buf)
y = np.empty_like(x)
cl.enqueue_copy(queue, y, y_buf)
assert np.array_equal(y, 3 * x + 1), y
print("weighed")
