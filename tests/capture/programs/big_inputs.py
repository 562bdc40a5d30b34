"""One launch on large buffers the kernel may write, declared without const: ``same``
(20 MiB, more than a piece) and ``mid`` (4 MiB, a file of its own read whole) left as they
were, and ``tail`` (20 MiB) and ``last`` (4 MiB) changed in their last element only. Prints
the sum of the last elements after it."""

import numpy as np
import pyopencl as cl

big, mid = 5 << 20, 1 << 20  # int32 values
context = cl.create_some_context(interactive=False)
queue = cl.CommandQueue(context)
program = cl.Program(
    context,
    """
__kernel void touch(__global int *same, __global int *tail, __global int *mid,
                    __global int *last, int big, int small) {
    int i = get_global_id(0);
    if (i == 0) { tail[big - 1] += same[3] + 1; last[small - 1] += mid[5] + 1; }
}
""",
).build()
flags = cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR
buffers = [
    cl.Buffer(context, flags, hostbuf=np.arange(count, dtype=np.int32) % modulo)
    for count, modulo in ((big, 1000), (big, 777), (mid, 999), (mid, 555))
]
program.touch(queue, (64,), None, *buffers, np.int32(big), np.int32(mid))
tails = np.empty(2, np.int32)
cl.enqueue_copy(queue, tails[:1], buffers[1], src_offset=(big - 1) * 4)
cl.enqueue_copy(queue, tails[1:], buffers[3], src_offset=(mid - 1) * 4)
print(f"tails {int(tails.sum())}")
