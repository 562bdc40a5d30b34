"""One kernel launched in every way pyopencl takes a launch: by position and by keyword,
through ``Kernel.__call__`` (with and without declared argument types), through
``enqueue_nd_range_kernel``, with ``g_times_l``, ``wait_for`` and a global offset, and through
``pyopencl.array``. Prints a checksum of each result; exits 0."""

import numpy as np
import pyopencl as cl
import pyopencl.array as cla

SOURCE = """
__kernel void affine(__global const float *x, __global float *y, float a, int n) {
    int i = get_global_id(0);
    if (i < n) y[i] = a * x[i] + (float)i;
}
"""

n = 64
context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
program = cl.Program(context, SOURCE).build()
mf = cl.mem_flags
x = np.arange(n, dtype=np.float32) / 8
x_buf = cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x)
y_buf = cl.Buffer(context, mf.READ_WRITE, size=x.nbytes)
affine = cl.Kernel(program, "affine")
typed = cl.Kernel(program, "affine")
typed.set_scalar_arg_dtypes([None, None, np.float32, np.int32])


def show(name):
    y = np.empty(n, np.float32)
    cl.enqueue_copy(queue, y, y_buf)
    print(f"{name} {float(y.sum()):.3f}")


affine(queue, (n,), (16,), x_buf, y_buf, np.float32(2), np.int32(n))
show("call")
affine.__call__(queue, (n,), None, x_buf, y_buf, np.float32(3), np.int32(n))
show("dunder-call")
event = cl.enqueue_marker(queue)
affine(
    queue,
    (n,),
    (16,),
    x_buf,
    y_buf,
    np.float32(4),
    np.int32(n),
    global_offset=(0,),
    wait_for=[event],
    g_times_l=False,
)
show("call-keywords")
affine(queue, (n // 16,), (16,), x_buf, y_buf, np.float32(5), np.int32(n), g_times_l=True)
show("g-times-l")
typed(queue, (n,), (8,), x_buf, y_buf, 6, n)
show("typed-call")
affine.set_args(x_buf, y_buf, np.float32(7), np.int32(n))
cl.enqueue_nd_range_kernel(queue, affine, (n,), (16,))
show("enqueue")
affine.set_arg(2, np.float32(8))
cl.enqueue_nd_range_kernel(
    queue,
    affine,
    global_work_size=(n,),
    local_work_size=(32,),
    global_work_offset=(0,),
    wait_for=None,
)
show("enqueue-keywords")
affine.set_arg(2, np.float32(9))
cl.enqueue_nd_range_kernel(queue, affine, (n - 8,), None, (8,))
show("enqueue-offset")
doubled = (cla.to_device(queue, x) * 2).get()
print(f"array {float(doubled.sum()):.3f}")
