"""A kernel that includes a header of its own whose C++ part (``#ifdef __cplusplus``) and an
``#if 0`` group name headers that are nowhere: an OpenCL C build never reads them."""

import os
from pathlib import Path

import numpy as np
import pyopencl as cl

os.chdir(Path(__file__).parent / "include" / "guarded")
source = """#include "dual.h"
__kernel void scale(__global const float *x, __global float *y)
{
    int i = get_global_id(0);
    y[i] = SCALE * x[i];
}
"""
x = np.arange(32, dtype=np.float32)
context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
program = cl.Program(context, source).build()
mf = cl.mem_flags
x_buf = cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
y_buf = cl.Buffer(context, mf.WRITE_ONLY, size=x.nbytes)
program.scale(queue, (32,), (8,), x_buf, y_buf)
y = np.empty_like(x)
cl.enqueue_copy(queue, y, y_buf)
assert np.array_equal(y, 2 * x), y
print("scaled")
