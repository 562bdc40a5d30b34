"""A kernel whose results hold NaN and infinities where its inputs ask for them: a logarithm
of negative numbers and of zero, and a quotient by zero."""

import numpy as np
import pyopencl as cl

source = """
__kernel void logs(__global const float *x, __global float *out, __global float *ratio)
{
    int i = get_global_id(0);
    out[i] = log(x[i]);
    ratio[i] = 1.0f / x[i];
}
"""
x = np.array([-2, -1, 0, 0.5, 1, 2, 4, 8] * 4, dtype=np.float32)
context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
program = cl.Program(context, source).build()
mf = cl.mem_flags
x_buf = cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
out_buf = cl.Buffer(context, mf.WRITE_ONLY, size=x.nbytes)
ratio_buf = cl.Buffer(context, mf.WRITE_ONLY, size=x.nbytes)
program.logs(queue, x.shape, (8,), x_buf, out_buf, ratio_buf)
out = np.empty_like(x)
cl.enqueue_copy(queue, out, out_buf)
print(int(np.isnan(out).sum()), int(np.isinf(out).sum()))
