"""One kernel launched six times on one buffer, which the host changes between launches every
way pyopencl offers (a copy from the host, a fill, a copy from another buffer, a map); its
``const`` argument is read by the kernel only, and is passed once as the buffer itself."""

import numpy as np
import pyopencl as cl

source = """
__kernel void add(__global int *v, __global const int *step)
{
    int i = get_global_id(0);
    v[i] += step[i];
}
"""
n = 16
context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
add = cl.Program(context, source).build().add
mf = cl.mem_flags
values = cl.Buffer(context, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.zeros(n, np.int32))
steps = cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=np.arange(n, dtype=np.int32))
sevens = cl.Buffer(context, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=np.full(n, 7, np.int32))

add(queue, (n,), None, values, steps)  # 1: before 0
cl.enqueue_copy(queue, values, np.full(n, 100, np.int32))
add(queue, (n,), None, values, steps)  # 2: before 100
cl.enqueue_fill_buffer(queue, values, np.int32(5), 0, n * 4)
add(queue, (n,), None, values, steps)  # 3: before 5
cl.enqueue_copy(queue, values, sevens)
add(queue, (n,), None, values, steps)  # 4: before 7
mapped, _ = cl.enqueue_map_buffer(queue, values, cl.map_flags.WRITE, 0, (n,), np.int32)
mapped[:] = 9
mapped.base.release(queue)
add(queue, (n,), None, values, steps)  # 5: before 9
add(queue, (n,), None, values, values)  # 6: before 9 + step, after twice that
result = np.empty(n, np.int32)
cl.enqueue_copy(queue, result, values)
print(" ".join(map(str, result)))
