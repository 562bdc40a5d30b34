"""Built with -cl-single-precision-constant: the double literals of the kernel are floats."""

import numpy as np
import pyopencl as cl

ctx = cl.create_some_context(interactive=False)
q = cl.CommandQueue(ctx)
SOURCE = """
__kernel void damp(__global float *x) {
    int i = get_global_id(0);
    x[i] = x[i] * 0.1 + 1.0e-3 * sqrt(x[i]) / 3.0;
}"""
OPTIONS = ["-cl-single-precision-constant", "-cl-fp32-correctly-rounded-divide-sqrt"]
prg = cl.Program(ctx, SOURCE).build(options=OPTIONS)
x = np.linspace(1, 1000, 256).astype(np.float32)
b = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=x)
prg.damp(q, x.shape, None, b)
cl.enqueue_copy(q, x, b)
print("damp", float(x.sum()))
